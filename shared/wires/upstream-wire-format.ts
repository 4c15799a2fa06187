import type { SseMessage } from '../sse/sse-event-splitter.ts';
import type { StreamUsageReader, UsageReport } from './usage-report.ts';
import type { UpstreamWire } from './wire-names.ts';

/** `path` (with its leading slash) under a connection's base URL, whatever trailing slashes the base URL has. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/** What a wire needs to know of a connection to call it. */
export interface UpstreamTarget {
  /** The connection's base URL, e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  /** The provider credential, read from the secret store; it never leaves the gateway except to this upstream. */
  credential: string;
}

export interface UpstreamHttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The operations a client can ask of a wire. */
export type WireOperation = 'generate' | 'count-tokens';

export interface BuildUpstreamRequestInput {
  target: UpstreamTarget;
  /** The request in this wire, typed and validated; unknown fields are kept so they reach the provider untouched. */
  body: Record<string, unknown>;
  /** The model name the upstream knows. */
  upstreamModel: string;
  stream: boolean;
  operation: WireOperation;
  /**
   * The most output tokens one answer may produce (the output allowance the reservation holds for it): written in
   * this wire's own cap field where the body states none or more. Generations only.
   */
  outputCap?: number | undefined;
}

/**
 * One upstream wire format: how to address it and authenticate to it, and how to read what it answers — each
 * stream event once, into this wire's typed event, which the usage reader, the failure check and the translators
 * all read. Wires know formats, not storage: nothing here reads or writes the store.
 */
export interface UpstreamWireFormat<Answer, Event> {
  readonly wire: UpstreamWire;
  /**
   * Client headers (lower-case names) that reach this upstream when the client speaks this same format, such as
   * the feature flags its SDK sends. Each is a comma-separated list of names; nothing else of the client's
   * headers ever goes upstream.
   */
  readonly forwardedClientHeaders: readonly string[];
  buildUpstreamRequest(input: BuildUpstreamRequestInput): UpstreamHttpRequest;
  /** Usage in a whole (non-streamed) answer, its JSON parsed once; `undefined` when absent. */
  usageOfAnswer(answer: unknown): UsageReport | undefined;
  /** A whole answer read for translation, every part a translator uses; throws a 502 when it is not one. */
  parseAnswer(answer: unknown): Answer;
  /** One stream event, read once; `undefined` for one this wire does not know (a pass-through still sends it). */
  parseEvent(message: SseMessage): Event | undefined;
  /** Whether the event reports a failure: the stream it ends has not completed its answer. */
  isFailure(event: Event): boolean;
  createUsageReader(): StreamUsageReader<Event>;
}
