import type { GatewayError } from '../http/gateway-error.ts';
import type { MediaPart } from './input-media.ts';
import type { ClientWire, ErrorEnvelope, UpstreamWire } from './wire-names.ts';

/** Where a request was sent: generate-content names its model and whether it streams in the path and query. */
export interface RequestAddress {
  /** The path without an upstream prefix. */
  innerPath: string;
  query: URLSearchParams;
}

/** A request body as a wire's schema reads it: a JSON object whose unknown fields are kept. */
export type WireRequest = Record<string, unknown>;

/**
 * What the stages before dispatch need of a client wire: its envelope, its schema and where it names its model.
 * A wire that is not an inference (the token count) is only this; it is never admitted nor recorded.
 */
export interface ClientRequestReader<Request extends WireRequest> {
  readonly wire: ClientWire;
  readonly envelope: ErrorEnvelope;
  /**
   * The body read with this wire's request schema: the typed request every later stage reads. Unknown fields
   * are kept, so a pass-through still sends them to the provider. Throws a 400 GatewayError.
   */
  parseRequest(body: Record<string, unknown>, address: RequestAddress): Request;
  /** The requested model id, from the request or (generate-content) the path. */
  modelOf(request: Request, address: RequestAddress): string;
}

/**
 * A token count's client wire that answers for every model: a connection of `countingWire` counts it natively (a
 * pass-through to that connection's count endpoint); a model on any other connection gets the gateway's estimate,
 * in this wire's answer shape.
 */
export interface TokenCountWireFormat<Request extends WireRequest> extends ClientRequestReader<Request> {
  readonly countingWire: UpstreamWire;
  estimatedCountAnswer(tokens: number): unknown;
}

/**
 * What the shared inference pipeline needs to know of one client wire format. Each wire is one object of this
 * shape, beside its format in `shared/wires/<wire>/`; the pipeline never branches on a wire's name.
 *
 * `ClientEvent` is an event of this wire's stream as the gateway writes it; `UpstreamEvent` the same wire's event
 * as the gateway reads it from an upstream, which is what a pass-through forwards.
 */
export interface ClientWireFormat<Request extends WireRequest, ClientEvent, UpstreamEvent = ClientEvent>
  extends ClientRequestReader<Request> {
  isStream(request: Request, address: RequestAddress): boolean;
  /** The output tokens the request asks for, if it states a number. */
  requestedOutput(request: Request): number | undefined;
  /** How many answers the request asks for (`n`, `candidateCount`): each may be as long as the output allowance. */
  answerCount(request: Request): number;
  /**
   * Under a finite token allowance: refuses with a 400 what the reservation cannot bound, such as tools the
   * provider runs on its side (shared/wires/spend-bounds.ts).
   */
  assertCostBounded(request: Request): void;
  /**
   * The media the request holds (images, video, audio, files) and where, for the check against what the model
   * takes (shared/catalog/input-modalities.ts) before anything is reserved.
   */
  mediaParts(request: Request): MediaPart[];
  /**
   * The upstream events a pass-through leaves out for this request, such as a usage chunk the client did not ask
   * for; every other event reaches the client as the bytes it came in. Undefined: every event passes.
   */
  passThroughDrops(request: Request): ((event: UpstreamEvent) => boolean) | undefined;
  /** The event that ends a stream when the upstream fails mid-stream, in this wire's error form. */
  streamErrorEvent(error: GatewayError): ClientEvent;
  /** This wire's one SSE encoder: the text of an event the gateway writes. */
  encodeEvent(event: ClientEvent): string;
  /**
   * The framing a streamed request asked for when it is not server-sent events (generate-content without
   * `alt=sse` streams one JSON array); undefined for server-sent events. Decided by the address alone, so that even
   * a refusal before the body is read comes in it.
   */
  streamFraming?(address: RequestAddress): StreamFraming | undefined;
}

/**
 * A stream framing other than server-sent events. It carries each upstream event's JSON (its SSE `data`) as it
 * came, so it serves a pass-through only: no translation leads to a wire that has one.
 */
export interface StreamFraming {
  readonly contentType: string;
  /** One response's writer: it knows what it has written, so the end and a failure close what it opened. */
  open(): FramedStreamWriter;
  /** An error answer's JSON body, the gateway's or the upstream's, as this framing carries an error. */
  errorBody(body: string): string;
}

export interface FramedStreamWriter {
  /** The text that carries one event's JSON. */
  event(json: string): string;
  /** What ends a stream that reached its end. */
  end(): string;
  /** What ends a stream that failed midway: the gateway's error, then the end. */
  failure(error: GatewayError): string;
}
