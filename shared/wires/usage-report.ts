/**
 * Token usage as a provider reported it. `null` means the provider did not report that figure: unknown, never 0.
 * Cached input is a part of input (cache reads already counted in `inputTokens`), never an addition to it.
 */
export interface UsageReport {
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
}

/** One parsed server-sent event. */
export interface StreamEvent {
  event: string | undefined;
  data: string;
}

/**
 * Re-frames an upstream's stream events for the client, one event at a time: a filter (a usage chunk the client
 * did not ask for) or a translation into the client's wire. `push` returns the SSE text to send now (possibly
 * empty); `end` what closes the stream when the upstream ends normally. Plain synchronous calls rather than a
 * `TransformStream`: the relay already parses events inside its own pull-based stream (for the usage reader),
 * so it calls these in the same callback without another stream stage, buffer or backpressure boundary.
 */
export interface EventRewriter {
  push(event: StreamEvent): string;
  end(): string;
}

/** One event as SSE text, a multi-line `data` split into one `data:` line each. */
export function serializeEvent(event: StreamEvent): string {
  const data = event.data
    .split('\n')
    .map((line) => `data: ${line}\n`)
    .join('');
  return `${event.event ? `event: ${event.event}\n` : ''}${data}\n`;
}

/**
 * Reads usage from a stream on the side, one event at a time, without holding the body. Providers differ in
 * where usage lives (a final chunk, two events that must be combined, a cumulative figure where the last wins),
 * so each wire brings its own reader.
 */
export interface StreamUsageReader {
  push(event: StreamEvent): void;
  /** The usage seen so far; `undefined` when the stream carried none. */
  result(): UsageReport | undefined;
}
