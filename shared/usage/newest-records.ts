import { type RecordPartition, recordsNewestFirst } from '../store/usage-record-queries.ts';
import type { UsageRecord, UsageTable } from '../store/usage-record-store.ts';
import { periodDays, startedAtBounds, type UsagePeriod } from './usage-period.ts';
import { isFiltered, type RecordSelection } from './usage-visibility.ts';

export interface NewestRecords {
  records: UsageRecord[];
  /** More matching records exist in the period than the limit let through. */
  more: boolean;
}

/** One bounded Query: a time-index partition and an inclusive `startedAt` range inside the period. */
export interface RecordRead {
  partition: RecordPartition;
  from: string;
  to: string;
}

/**
 * The reads that cover the period, newest first: the member's own index when the selection names a member,
 * else the team's day partitions. With `activeDays` (the days the rollups show matching activity on), days
 * without any are skipped, so a filter that matches little never walks every record of a long period.
 */
export function recordReads(
  period: UsagePeriod,
  selection: RecordSelection,
  activeDays?: ReadonlySet<string>,
): RecordRead[] {
  const { from, to } = startedAtBounds(period);
  const days = periodDays(period).filter((day) => activeDays === undefined || activeDays.has(day));
  if (selection.memberId === undefined) {
    return days.map((day) => ({ partition: { index: 'day', day }, from, to }));
  }
  const partition: RecordPartition = { index: 'member', memberId: selection.memberId };
  if (activeDays === undefined) return [{ partition, from, to }];
  return days.map((day) => ({
    partition,
    from: maxString(from, `${day}T00:00:00.000Z`),
    to: minString(to, `${day}T23:59:59.999Z`),
  }));
}

const maxString = (a: string, b: string) => (a > b ? a : b);
const minString = (a: string, b: string) => (a < b ? a : b);

/**
 * The newest `limit` records matching the selection (spec §8: 200 for details, 1,000 for the CSV export).
 * Reads one more than the limit to know whether there are more, and stops reading as soon as it has them.
 */
export async function readNewestRecords(
  table: UsageTable,
  period: UsagePeriod,
  selection: RecordSelection,
  limit: number,
  activeDays?: ReadonlySet<string>,
): Promise<NewestRecords> {
  if (selection.nothingVisible) return { records: [], more: false };
  const filtered = isFiltered(selection);
  const records: UsageRecord[] = [];
  for (const read of recordReads(period, selection, activeDays)) {
    const pages = recordsNewestFirst(table, read.partition, {
      from: read.from,
      to: read.to,
      keyId: selection.keyId,
      providers: selection.providers,
      // Unfiltered, exactly enough items; filtered, larger pages so a selective filter needs few round trips.
      pageSize: filtered ? 1_000 : limit + 1 - records.length,
    });
    for await (const page of pages) {
      records.push(...page);
      if (records.length > limit) return { records: records.slice(0, limit), more: true };
    }
  }
  return { records, more: false };
}
