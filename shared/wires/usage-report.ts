/**
 * Token usage as a provider reported it. `null` means the provider did not report that figure: unknown, never 0.
 * Cached input is a part of input (cache reads already counted in `inputTokens`), never an addition to it.
 */
export interface UsageReport {
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  /**
   * Why the provider's own figures cannot be charged — a count that is not a non-negative safe integer, or a part
   * larger than its whole — named in the provider's fields, so the log says what it sent. Absent when they can.
   * Set by the wire that read them (`usageProblem`), since a sum such as the messages wire's input total can hide
   * a negative part.
   */
  problem?: string;
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

/** A token count as it must be: a non-negative safe integer. */
export function isTokenCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

/**
 * The first problem among a provider's counts, by its own field names: each stated count must be a token count,
 * and each part (`[part, whole]`) no larger than its whole. `undefined` when there is none.
 */
export function usageProblem(
  counts: Readonly<Record<string, number | null | undefined>>,
  parts: readonly (readonly [part: string, whole: string])[] = [],
): string | undefined {
  for (const [field, value] of Object.entries(counts)) {
    if (value !== null && value !== undefined && !isTokenCount(value)) {
      return `${field} is ${value}, not a count of tokens`;
    }
  }
  for (const [part, whole] of parts) {
    const partCount = counts[part];
    const wholeCount = counts[whole];
    if (partCount !== null && partCount !== undefined && wholeCount !== null && wholeCount !== undefined) {
      if (partCount > wholeCount) return `${part} (${partCount}) is more than ${whole} (${wholeCount})`;
    }
  }
  return undefined;
}

/** The report with the problem of its raw counts, when they have one. */
export function withUsageProblem(report: UsageReport, problem: string | undefined): UsageReport {
  return problem === undefined ? report : { ...report, problem };
}
