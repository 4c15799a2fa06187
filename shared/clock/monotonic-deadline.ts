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

/** A request's deadline, enforced by a timer of its own rather than by whoever happens to be waiting. */
export interface RequestDeadline extends Deadline {
  /** Aborted when the deadline passes, whether or not anything is reading or waiting at that moment. */
  readonly signal: AbortSignal;
  /** The request has ended: the timer is not needed any more. */
  stop(): void;
}

/** Why a request deadline's signal aborted. */
export const deadlinePassed = Symbol('request deadline passed');

/** Node's timers run on the monotonic clock, like `deadlineIn`; the timer does not keep the process alive. */
export function startRequestDeadline(durationMs: number): RequestDeadline {
  const deadline = deadlineIn(durationMs);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(deadlinePassed), durationMs);
  timer.unref();
  return { remainingMs: deadline.remainingMs, signal: controller.signal, stop: () => clearTimeout(timer) };
}
