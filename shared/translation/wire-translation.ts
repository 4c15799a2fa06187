import type { CatalogModel } from '../catalog/catalog-data.ts';
import type { GatewayError } from '../http/gateway-error.ts';
import { composeTransformers, type EventTransformer, runTransformer } from '../streams/event-transformer.ts';
import type { ClientChunk, RelayedEvent } from '../streams/relayed-event.ts';
import type { ClientWireFormat, StreamFraming, WireRequest } from '../wires/client-wire-format.ts';
import type { UpstreamWireFormat } from '../wires/upstream-wire-format.ts';
import type { ClientWire, UpstreamWire } from '../wires/wire-names.ts';
import { framedPassThroughStream, passThroughStream, translatedStream } from './client-stream.ts';
import { applyReasoningEffort } from './reasoning-effort.ts';
import { applyThinkingMode } from './thinking-mode.ts';
import { assertThinkingNotSwitchedOff } from './thinking-required.ts';
import type { HopExchange, TranslationContext, TranslationHop } from './translation-hop.ts';
import { type TranslationHopName, translationHopTarget, translationPath } from './translation-paths.ts';

/**
 * Any hop, its types erased: the chain is chosen per request, so the joints between hops are checked by the
 * hops' own types (each hop's far side is the next hop's near side), not here.
 */
export type AnyHop = TranslationHop<unknown, unknown, unknown, unknown, unknown, unknown>;
type AnyExchange = HopExchange<unknown, unknown, unknown, unknown, unknown>;

/**
 * The hops one function carries: those its client wire's requests can take (see shared/translation/client-reach/).
 * They are handed in rather than imported here so that each Lambda bundle holds only its own wire's translators
 * (docs/bundles.md); test/translation/client-reach.test.ts proves every reachable path is covered.
 */
export type TranslationHops = { readonly [Name in TranslationHopName]?: AnyHop };

function hopImplementation(hops: TranslationHops, name: TranslationHopName): AnyHop {
  const hop = hops[name];
  if (!hop) throw new Error(`the ${name} translation hop is not among this function's hops`);
  return hop;
}

/**
 * The catalog's rules for a request in the form a wire writes it, the forms they are written for: the reasoning
 * effort on chat, thinking mode on messages (thinking-mode.ts). Other forms reach those rules through a hop.
 */
function withModelRules(
  wire: ClientWire | UpstreamWire,
  request: WireRequest,
  catalog: CatalogModel | undefined,
  outputAllowance: number,
): WireRequest {
  if (!catalog) return request;
  switch (wire) {
    case 'openai-chat':
      return applyReasoningEffort(request, catalog);
    case 'anthropic-messages':
      // Thinking mode is the rule of a route that speaks messages (K2.7); a model whose route speaks chat (K3)
      // meets its thinking rule as a reasoning effort, once its request is in chat form.
      return catalog.thinkingRequired && catalog.upstreamWire === 'anthropic-messages'
        ? applyThinkingMode(request, outputAllowance)
        : request;
    default:
      return request;
  }
}

/** One request across its route: what goes upstream, and how each kind of answer comes back to the client. */
export interface WireTranslation {
  /** The request in the upstream's wire, typed; a pass-through's keeps every field the client sent. */
  readonly upstreamRequest: WireRequest;
  /** A whole answer (status < 400) as the client gets it: its text, or its JSON (parsed once) translated. */
  answerBody(upstreamText: string, answer: unknown): string;
  /** An upstream error body in the client's envelope; the caller keeps its status. */
  errorBody(upstreamText: string): string;
  /** What the client receives of a stream, event by event. */
  streamToClient(): EventTransformer<RelayedEvent<unknown>, ClientChunk>;
  /** The event that ends the client's stream when the upstream fails mid-stream. */
  streamFailure(error: GatewayError): string;
}

export interface TranslationRoute<Request extends WireRequest, ClientEvent, UpstreamEvent> {
  clientWire: ClientWireFormat<Request, ClientEvent, UpstreamEvent>;
  upstreamWire: UpstreamWireFormat<unknown, unknown>;
  catalog: CatalogModel | undefined;
  /** The framing the client asked for when it is not server-sent events (see ClientWireFormat.streamFraming). */
  framing?: StreamFraming | undefined;
  /** The hops this client wire can take (shared/translation/client-reach/). */
  hops: TranslationHops;
}

/**
 * Builds the translation of one request: a pass-through where the client's wire is the upstream's, else the
 * chain of hops between them (chat is the hub). Refusals (400) are thrown here, before anything is reserved.
 * The model's rules are applied where they belong: whether thinking may be switched off once, on the client's
 * own request (a switch that translation would drop must still be refused); the reasoning effort wherever the
 * request is in chat form, and thinking mode wherever it is in messages form: the forms the catalog's rules are
 * written for, so a messages client on the K2.7 route meets the same rule as a chat client translated to it.
 */
export function translateRequest<Request extends WireRequest, ClientEvent, UpstreamEvent>(
  clientRequest: Request,
  route: TranslationRoute<Request, ClientEvent, UpstreamEvent>,
  context: Omit<TranslationContext, 'nearestTheClient'>,
): WireTranslation {
  const { clientWire, upstreamWire, catalog, framing, hops } = route;
  if (catalog?.thinkingRequired) assertThinkingNotSwitchedOff(clientRequest);
  const inItsForm = (wire: ClientWire | UpstreamWire, request: WireRequest) =>
    withModelRules(wire, request, catalog, context.outputAllowance);
  const path = translationPath(clientWire.wire, upstreamWire.wire);
  if (path === undefined) throw new Error(`no translation from ${clientWire.wire} to ${upstreamWire.wire}`);
  const streamFailure = (error: GatewayError) => clientWire.encodeEvent(clientWire.streamErrorEvent(error));

  let request: WireRequest = inItsForm(clientWire.wire, clientRequest);
  if (path.length === 0) {
    const drops = clientWire.passThroughDrops(clientRequest);
    if (framing) {
      const writer = framing.open();
      return {
        upstreamRequest: request,
        answerBody: (upstreamText) => upstreamText,
        errorBody: (upstreamText) => framing.errorBody(upstreamText),
        streamToClient: () => framedPassThroughStream(drops as ((event: unknown) => boolean) | undefined, writer),
        streamFailure: (error) => writer.failure(error),
      };
    }
    return {
      upstreamRequest: request,
      answerBody: (upstreamText) => upstreamText,
      errorBody: (upstreamText) => upstreamText,
      // The same wire both ends: the upstream's events are the client wire's own.
      streamToClient: () => passThroughStream(drops as ((event: unknown) => boolean) | undefined),
      streamFailure,
    };
  }

  if (framing) throw new Error(`no framing but server-sent events for a translation to ${upstreamWire.wire}`);
  // Nearest the client first; each hop translates the request the one before it produced.
  const exchanges: AnyExchange[] = path.map((name, position) => {
    const exchange = hopImplementation(hops, name).translate(request, { ...context, nearestTheClient: position === 0 });
    const translated = exchange.request as WireRequest;
    request = inItsForm(translationHopTarget(name), translated);
    return exchange;
  });
  const encode = (event: unknown) => clientWire.encodeEvent(event as ClientEvent);
  /** The request's chain of stream hops, once its stream has started. */
  let chain: EventTransformer<unknown, unknown> | undefined;
  return {
    upstreamRequest: request,
    answerBody: (_upstreamText, answer) =>
      JSON.stringify(
        exchanges.reduceRight((value, exchange) => exchange.convertAnswer(value), upstreamWire.parseAnswer(answer)),
      ),
    errorBody: (upstreamText) => exchanges.reduceRight((text, exchange) => exchange.convertError(text), upstreamText),
    streamToClient() {
      // The stream flows from the upstream: the hop nearest it translates first.
      chain = exchanges
        .map((exchange) => exchange.streamTransformer())
        .reduceRight((farther, nearer) => composeTransformers(farther, nearer));
      return translatedStream(chain, encode);
    },
    // The hop nearest the client ends its own stream where it can (numbered, with its final state).
    streamFailure(error) {
      const events: unknown[] = [];
      if (chain) runTransformer(chain, (event) => events.push(event)).fail(error);
      return events.length > 0 ? events.map(encode).join('') : streamFailure(error);
    },
  };
}
