/**
 * The calendar clock of the gateway under test (`services.now`, which decides UTC days and minutes), held on one
 * instant. vitest.config.ts runs the clock-sensitive files again with `GATEWAY_TEST_CLOCK` set to instants such
 * as 12:30 and 23:59:50 UTC, so a test that passes in the morning cannot fail in the afternoon or at midnight.
 * Deadlines and time-outs run on the monotonic clock and are not affected.
 */
export const pinnedClockVariable = 'GATEWAY_TEST_CLOCK';

/** The instant this run holds the calendar clock on, or undefined to run on the real clock. */
export function pinnedInstant(): number | undefined {
  const text = process.env[pinnedClockVariable];
  if (!text) return undefined;
  const instant = Date.parse(text);
  if (Number.isNaN(instant)) throw new Error(`${pinnedClockVariable} is not an instant: ${text}`);
  return instant;
}

/** A calendar clock that always answers `instant`. */
export function heldClock(instant: number): () => Date {
  return () => new Date(instant);
}

/** This run's pinned instant, or `fallback` for a test that must hold the clock whatever the run. */
export function testInstant(fallback: string): number {
  return pinnedInstant() ?? Date.parse(fallback);
}
