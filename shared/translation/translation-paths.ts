import { type ClientWire, clientWires, clientWiresServedBy, type UpstreamWire } from '../wires/wire-names.ts';

/**
 * Which models a hop may serve: `any`, a plain change of format, honest for every model on a connection of its far
 * wire; `catalog`, a hop that carries the rules of a catalog model's route (chat → messages turns K2.7's required
 * thinking on), for the catalog models only.
 */
export type HopModels = 'any' | 'catalog';

/**
 * The translation steps the gateway has, each from the wire nearer the client to the wire nearer the upstream.
 * Data only, so routing can ask what is reachable without loading the translators.
 */
const translationHops = {
  'responses-to-chat': { from: 'openai-responses', to: 'openai-chat', models: 'any' },
  'chat-to-messages': { from: 'openai-chat', to: 'anthropic-messages', models: 'catalog' },
} as const satisfies Record<string, { from: ClientWire; to: UpstreamWire; models: HopModels }>;

export type TranslationHopName = keyof typeof translationHops;

/** The wire a hop's request is written in. */
export function translationHopTarget(name: TranslationHopName): UpstreamWire {
  return translationHops[name].to;
}

/** Every translation passes through chat where it cannot go directly. */
const hub = 'openai-chat';

function hopBetween(from: ClientWire, to: UpstreamWire, models: HopModels): TranslationHopName | undefined {
  const names = Object.keys(translationHops) as TranslationHopName[];
  return names.find((name) => {
    const hop = translationHops[name];
    return hop.from === from && hop.to === to && (models === 'catalog' || hop.models === 'any');
  });
}

/**
 * How a client wire reaches a connection's wire for a model (`catalog` for a catalog model, which every hop may
 * serve; `any` for a model a connection declares): `[]` when the wires are the same (pass-through); one hop where
 * one goes there; two through the chat hub (client → chat → upstream); undefined where there is no way.
 */
export function translationPath(
  client: ClientWire,
  upstream: UpstreamWire,
  models: HopModels,
): TranslationHopName[] | undefined {
  if (clientWiresServedBy(upstream).includes(client)) return [];
  const direct = hopBetween(client, upstream, models);
  if (direct) return [direct];
  const toHub = hopBetween(client, hub, models);
  const fromHub = hopBetween(hub, upstream, models);
  return toHub && fromHub ? [toHub, fromHub] : undefined;
}

/** The client wires a connection's wire can answer for a model, natively or through the translation paths. */
export function clientWiresReaching(upstream: UpstreamWire, models: HopModels): ClientWire[] {
  return clientWires.filter((client) => translationPath(client, upstream, models) !== undefined);
}
