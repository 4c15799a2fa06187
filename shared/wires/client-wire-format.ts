import type { GatewayError } from '../http/gateway-error.ts';
import type { EventRewriter } from '../pipeline/event-rewriter.ts';
import type { ClientWire, ErrorEnvelope } from './wire-names.ts';

/** Where a request was sent: generate-content names its model and whether it streams in the path and query. */
export interface RequestAddress {
  /** The path without an upstream prefix. */
  innerPath: string;
  query: URLSearchParams;
}

/**
 * What the stages before dispatch need of a client wire: its envelope, its schema and where it names its model.
 * A wire that is not an inference (the token count) is only this; it is never admitted nor recorded.
 */
export interface ClientRequestReader {
  readonly wire: ClientWire;
  readonly envelope: ErrorEnvelope;
  /** Validates the body (and the address, where it carries part of the request); throws a GatewayError. */
  validate(body: Record<string, unknown>, address: RequestAddress): void;
  /** The requested model id, from the body or (generate-content) the path. */
  modelOf(body: Record<string, unknown>, address: RequestAddress): string;
}

/**
 * What the shared inference pipeline needs to know of one client wire format. Each wire is one object of this
 * shape; the pipeline never branches on a wire's name.
 */
export interface ClientWireFormat extends ClientRequestReader {
  isStream(body: Record<string, unknown>, address: RequestAddress): boolean;
  /** The output tokens the request asks for, if it states a number. */
  requestedOutput(body: Record<string, unknown>): number | undefined;
  /** Re-frames a same-wire stream, e.g. to drop a usage chunk the client did not ask for; undefined passes bytes. */
  streamRewriter(body: Record<string, unknown>): EventRewriter | undefined;
  /** The event that ends a stream when the upstream fails mid-stream, in this wire's error form. */
  streamErrorEvent(error: GatewayError): string;
}
