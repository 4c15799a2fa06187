import type { GatewayError } from '../http/gateway-error.ts';
import type { ClientWire, ErrorEnvelope } from '../http/wire.ts';
import type { StreamEvent } from '../providers/usage-report.ts';

/**
 * What the shared pipeline needs to know of one client wire format. Each wire is one object of this shape;
 * the pipeline never branches on a wire's name.
 */
export interface ClientWireHandler {
  readonly wire: ClientWire;
  readonly envelope: ErrorEnvelope;
  /** Validates the body with the wire's schema; throws a 400 GatewayError naming the problem. */
  validate(body: Record<string, unknown>): void;
  /** The requested model id, from the body or (generate-content) the path. */
  modelOf(body: Record<string, unknown>, innerPath: string): string;
  isStream(body: Record<string, unknown>, innerPath: string): boolean;
  /** The output tokens the request asks for, if it states a number. */
  requestedOutput(body: Record<string, unknown>): number | undefined;
  /** Upstream events the client did not ask for (e.g. a usage chunk), dropped from the relay. */
  dropStreamEvent(body: Record<string, unknown>): ((event: StreamEvent) => boolean) | undefined;
  /** The event that ends a stream when the upstream fails mid-stream, in this wire's error form. */
  streamErrorEvent(error: GatewayError): string;
}
