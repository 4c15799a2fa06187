/**
 * Deadlines and time-outs run on the process's monotonic clock (`performance.now()`), never on the injected
 * calendar clock (`services.now`) that decides UTC days and minutes: a test may hold the calendar clock on any
 * instant, and a duration is never the difference between two different clocks.
 */
export interface Deadline {
  /** Milliseconds left before the deadline; 0 once it has passed. */
  remainingMs(): number;
}

export function monotonicNow(): number {
  return performance.now();
}

export function deadlineIn(durationMs: number): Deadline {
  const at = monotonicNow() + durationMs;
  return { remainingMs: () => Math.max(0, at - monotonicNow()) };
}

/** Measures elapsed time on the monotonic clock, from the moment it is started. */
export function startStopwatch(): { elapsedMs(): number } {
  const startedAt = monotonicNow();
  return { elapsedMs: () => Math.round(monotonicNow() - startedAt) };
}
