/**
 * The periods of the usage view (spec §4.6), all in UTC. Totals come from rollups (hourly, and whole-day totals
 * for calendar days), so every period starts and ends on a whole UTC hour or day: that way rollups and records
 * cover exactly the same span and the totals, charts, routing map and details of one answer agree.
 */
export const periodIds = ['today', '24h', '7d', '14d', '30d', '60d'] as const;
export type PeriodId = (typeof periodIds)[number];
export const defaultPeriodId: PeriodId = '14d';

export type BucketSize = 'hour' | 'day';

export interface UsagePeriod {
  id: PeriodId;
  /** Inclusive start, on a whole UTC hour. */
  start: Date;
  /** Exclusive end: the end of today for calendar days, the end of the current hour for the rolling 24 hours. */
  end: Date;
  /** Chart bucket: hours for the short periods, days for the calendar-day ones. */
  bucket: BucketSize;
}

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/**
 * - today: the UTC calendar day, 00:00 to 24:00;
 * - 24h: the last 24 hours, widened to whole UTC hours (hourly rollups are the unit): from the start of the hour
 *   24 hours ago to the end of the current hour, so it never leaves out a request of the last 24 hours;
 * - 7d/14d/30d/60d: that many UTC calendar days including today, from 00:00 of the first to the end of today.
 */
export function resolvePeriod(id: PeriodId, now: Date): UsagePeriod {
  const currentHour = Math.floor(now.getTime() / hourMs) * hourMs;
  const today = Math.floor(now.getTime() / dayMs) * dayMs;
  const end = new Date(today + dayMs);
  switch (id) {
    case 'today':
      return { id, start: new Date(today), end, bucket: 'hour' };
    case '24h':
      return { id, start: new Date(currentHour - 24 * hourMs), end: new Date(currentHour + hourMs), bucket: 'hour' };
    case '7d':
    case '14d':
    case '30d':
    case '60d': {
      const days = Number(id.slice(0, -1));
      return { id, start: new Date(today - (days - 1) * dayMs), end, bucket: 'day' };
    }
    default: {
      const unknownPeriod: never = id;
      throw new Error(`unknown period ${String(unknownPeriod)}`);
    }
  }
}

/** The UTC days (`YYYY-MM-DD`) the period touches, newest first: the partitions of rollups and the day index. */
export function periodDays(period: UsagePeriod): string[] {
  const days: string[] = [];
  const last = Math.floor((period.end.getTime() - 1) / dayMs) * dayMs;
  for (let day = last; day >= Math.floor(period.start.getTime() / dayMs) * dayMs; day -= dayMs) {
    days.push(new Date(day).toISOString().slice(0, 10));
  }
  return days;
}

/** The hours (`HH`) of one day inside the period, as the first and last sort-key hour of that day's rollups. */
export function hoursOfDay(period: UsagePeriod, day: string): { first: string; last: string } {
  const dayStart = Date.parse(`${day}T00:00:00.000Z`);
  const from = Math.max(dayStart, period.start.getTime());
  const to = Math.min(dayStart + dayMs, period.end.getTime()) - hourMs;
  return { first: new Date(from).toISOString().slice(11, 13), last: new Date(to).toISOString().slice(11, 13) };
}

/** Period bounds as stored `startedAt` strings (ISO with milliseconds), both inclusive, for a BETWEEN condition. */
export function startedAtBounds(period: UsagePeriod, notBefore?: Date): { from: string; to: string } {
  const from = notBefore && notBefore > period.start ? notBefore : period.start;
  return { from: from.toISOString(), to: new Date(period.end.getTime() - 1).toISOString() };
}

/** The chart buckets' starts, oldest first, as ISO strings. */
export function periodBuckets(period: UsagePeriod): string[] {
  const step = period.bucket === 'hour' ? hourMs : dayMs;
  const buckets: string[] = [];
  for (let at = period.start.getTime(); at < period.end.getTime(); at += step) {
    buckets.push(new Date(at).toISOString());
  }
  return buckets;
}

/** The bucket a `startedAt` (or a rollup's day and hour) falls in. */
export function bucketOf(period: UsagePeriod, startedAt: string): string {
  return period.bucket === 'hour' ? `${startedAt.slice(0, 13)}:00:00.000Z` : `${startedAt.slice(0, 10)}T00:00:00.000Z`;
}
