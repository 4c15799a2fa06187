import type { GatewayError } from '../http/gateway-error.ts';
import type { ClientWire, ErrorEnvelope } from './wire-names.ts';

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
  /**
   * The upstream events a pass-through leaves out for this request, such as a usage chunk the client did not ask
   * for; every other event reaches the client as the bytes it came in. Undefined: every event passes.
   */
  passThroughDrops(request: Request): ((event: UpstreamEvent) => boolean) | undefined;
  /** The event that ends a stream when the upstream fails mid-stream, in this wire's error form. */
  streamErrorEvent(error: GatewayError): ClientEvent;
  /** This wire's one SSE encoder: the text of an event the gateway writes. */
  encodeEvent(event: ClientEvent): string;
}
