/**
 * The periods of the usage view (spec §4.6), all in UTC. Calendar-day periods start and end on whole UTC days; the
 * rolling 24 hours is exact, ending at the view's own instant. Totals read the rollups for the whole hours or days
 * inside a period and the records themselves for the parts of an hour at its edges, so totals, charts, routing
 * map and details of one answer cover exactly the same span.
 */
export const periodIds = ['today', '24h', '7d', '14d', '30d', '60d'] as const;
export type PeriodId = (typeof periodIds)[number];
export const defaultPeriodId: PeriodId = '14d';

export type BucketSize = 'hour' | 'day';

export interface UsagePeriod {
  id: PeriodId;
  /** Inclusive start. */
  start: Date;
  /** Exclusive end: the end of today for calendar days; just after the view's instant for the rolling 24 hours. */
  end: Date;
  /** Chart bucket: hours for the short periods, days for the calendar-day ones. */
  bucket: BucketSize;
}

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

const floorTo = (at: number, step: number) => Math.floor(at / step) * step;
const ceilTo = (at: number, step: number) => Math.ceil(at / step) * step;

/**
 * - today: the UTC calendar day, 00:00 to 24:00;
 * - 24h: exactly the 24 hours up to and including `now` (a request admitted at this very millisecond counts);
 * - 7d/14d/30d/60d: that many UTC calendar days including today, from 00:00 of the first to the end of today.
 */
export function resolvePeriod(id: PeriodId, now: Date): UsagePeriod {
  const today = floorTo(now.getTime(), dayMs);
  const end = new Date(today + dayMs);
  switch (id) {
    case 'today':
      return { id, start: new Date(today), end, bucket: 'hour' };
    case '24h':
      return { id, start: new Date(now.getTime() - dayMs), end: new Date(now.getTime() + 1), bucket: 'hour' };
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

/** An inclusive `startedAt` range, as stored (ISO with milliseconds). */
export interface StartedAtRange {
  from: string;
  to: string;
}

/** How a period is read: rollups for its whole hours or days, records for the parts of an hour at its edges. */
export interface PeriodCoverage {
  rollups: { by: 'hour' | 'day'; first: string; last: string } | undefined;
  /** The parts of a period that no whole rollup covers. */
  edges: StartedAtRange[];
}

const iso = (at: number) => new Date(at).toISOString();

function range(from: number, toExclusive: number): StartedAtRange {
  return { from: iso(from), to: iso(toExclusive - 1) };
}

export function periodCoverage(period: UsagePeriod): PeriodCoverage {
  const start = period.start.getTime();
  const end = period.end.getTime();
  const step = period.bucket === 'day' ? dayMs : hourMs;
  const wholeStart = ceilTo(start, step);
  const wholeEnd = floorTo(end, step);
  if (wholeStart >= wholeEnd) return { rollups: undefined, edges: [range(start, end)] };
  const length = period.bucket === 'day' ? 10 : 13;
  const edges: StartedAtRange[] = [];
  if (wholeEnd < end) edges.push(range(wholeEnd, end));
  if (start < wholeStart) edges.push(range(start, wholeStart));
  return {
    rollups: {
      by: period.bucket,
      first: iso(wholeStart).slice(0, length),
      last: iso(wholeEnd - step).slice(0, length),
    },
    edges,
  };
}

/** Period bounds as stored `startedAt` strings, both inclusive; `notBefore` moves the start later. */
export function startedAtBounds(period: UsagePeriod, notBefore?: Date): StartedAtRange {
  const from = notBefore && notBefore > period.start ? notBefore : period.start;
  return { from: from.toISOString(), to: new Date(period.end.getTime() - 1).toISOString() };
}

/** The chart buckets' starts, oldest first, as ISO strings; the first may begin before the period does. */
export function periodBuckets(period: UsagePeriod): string[] {
  const step = period.bucket === 'hour' ? hourMs : dayMs;
  const buckets: string[] = [];
  for (let at = floorTo(period.start.getTime(), step); at < period.end.getTime(); at += step) buckets.push(iso(at));
  return buckets;
}

/** The bucket a `startedAt` (or a rollup's day and hour) falls in. */
export function bucketOf(period: UsagePeriod, startedAt: string): string {
  return period.bucket === 'hour' ? `${startedAt.slice(0, 13)}:00:00.000Z` : `${startedAt.slice(0, 10)}T00:00:00.000Z`;
}
