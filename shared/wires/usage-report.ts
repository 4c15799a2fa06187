/**
 * Token usage as a provider reported it. `null` means the provider did not report that figure: unknown, never 0.
 * Cached input is a part of input (cache reads already counted in `inputTokens`), never an addition to it.
 */
export interface UsageReport {
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
}

/**
 * Reads usage from a stream on the side, one typed event at a time, without holding the body. Providers differ in
 * where usage lives (a final chunk, two events that must be combined, a cumulative figure where the last wins),
 * so each wire brings its own reader of its own events.
 */
export interface StreamUsageReader<Event> {
  push(event: Event): void;
  /** The usage seen so far; `undefined` when the stream carried none. */
  result(): UsageReport | undefined;
}
