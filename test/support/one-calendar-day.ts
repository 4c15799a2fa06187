import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The files of the real-clock run call the gateway on the real calendar: a request recorded on one UTC day and
 * read back on the next would look lost. Started this close to midnight UTC, the suite (a few minutes on two
 * cores; it must stay under ten) could cross it, so it starts just after midnight instead. The clock-sensitive
 * files also run with the calendar held on 23:59:50 (vitest.config.ts), which is where midnight itself is tested.
 */
const suiteLengthBoundMs = 10 * 60_000;
const dayMs = 86_400_000;

export default async function startOnOneCalendarDay(): Promise<void> {
  const untilMidnight = dayMs - (Date.now() % dayMs);
  if (untilMidnight > suiteLengthBoundMs) return;
  console.warn(`The suite would cross midnight UTC: it starts in ${Math.ceil(untilMidnight / 1000)} s, just after.`);
  await sleep(untilMidnight + 1_000);
}
