import {
  type BedrockWire,
  type ClientWire,
  clientWires,
  clientWiresServedBy,
  formatOfWire,
  isBedrockFamilyWire,
  type UpstreamWire,
} from '../wires/wire-names.ts';

/**
 * The translation steps the gateway has, each from the wire nearer the client to the wire nearer the upstream.
 * Data only, so routing can ask what is reachable without loading the translators.
 */
const translationHops = {
  'responses-to-chat': { from: 'openai-responses', to: 'openai-chat' },
  'chat-to-messages': { from: 'openai-chat', to: 'anthropic-messages' },
  'messages-to-chat': { from: 'anthropic-messages', to: 'openai-chat' },
  'chat-to-converse': { from: 'openai-chat', to: 'bedrock-converse' },
} as const satisfies Record<string, { from: ClientWire; to: UpstreamWire }>;

export type TranslationHopName = keyof typeof translationHops;

/** The hops that lead to a Bedrock wire: they load with Bedrock's code (client-reach/bedrock-reach.ts). */
export type BedrockHopName = {
  [Name in TranslationHopName]: (typeof translationHops)[Name]['to'] extends BedrockWire ? Name : never;
}[TranslationHopName];

export function isBedrockHop(name: TranslationHopName): name is BedrockHopName {
  return isBedrockFamilyWire(translationHops[name].to);
}

/** The wire a hop's request is written in. */
export function translationHopTarget(name: TranslationHopName): (typeof translationHops)[TranslationHopName]['to'] {
  return translationHops[name].to;
}

/** Every translation passes through chat where it cannot go directly. */
const hub = 'openai-chat';

function hopBetween(from: ClientWire, to: UpstreamWire): TranslationHopName | undefined {
  const names = Object.keys(translationHops) as TranslationHopName[];
  return names.find((name) => translationHops[name].from === from && translationHops[name].to === to);
}

/**
 * How a client wire reaches a connection's wire: `[]` when they are the same (pass-through); one hop where one
 * goes there; two through the chat hub (client → chat → upstream); undefined where there is no way. Every hop is
 * a plain change of format, honest for any model: a catalog model's route rules (thinking mode, reasoning effort)
 * are applied by wire-translation.ts wherever the request is in its route's form, not by a hop.
 */
export function translationPath(client: ClientWire, upstream: UpstreamWire): TranslationHopName[] | undefined {
  if (clientWiresServedBy(upstream).includes(client)) return [];
  // A hop is a change of format: a wire of another's format (Bedrock's messages) is reached as that format is.
  const format = formatOfWire(upstream);
  const direct = hopBetween(client, format);
  if (direct) return [direct];
  const toHub = hopBetween(client, hub);
  const fromHub = hopBetween(hub, format);
  return toHub && fromHub ? [toHub, fromHub] : undefined;
}

/** Every client wire that reaches a connection of this wire: its own, and those a chain of hops leads from. */
export function clientWiresReaching(upstream: UpstreamWire): ClientWire[] {
  return clientWires.filter((client) => translationPath(client, upstream) !== undefined);
}
