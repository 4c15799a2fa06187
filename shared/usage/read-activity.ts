import type { GatewayServices } from '../config/gateway-services.ts';
import { queryRollupDay } from '../store/rollup-queries.ts';
import { recordsNewestFirst } from '../store/usage-record-queries.ts';
import type { UsageRecord } from '../store/usage-record-store.ts';
import { mapWithConcurrency } from './map-with-concurrency.ts';
import { recordReads } from './newest-records.ts';
import { type ActivityRow, activityFromRollup, activityFromRunningRecord } from './usage-activity.ts';
import { hoursOfDay, periodDays, startedAtBounds, type UsagePeriod } from './usage-period.ts';
import type { RecordSelection } from './usage-visibility.ts';

/** Day partitions read at once: enough to hide round-trip latency, few enough not to burst the table. */
const rollupReadConcurrency = 8;

/**
 * All activity of the period for the selection's scope and key, before the provider filter (the page needs
 * every provider the period saw to offer them as filter nodes): closed requests from the hourly rollups, plus
 * the requests still running, read from their records.
 */
export async function readActivity(
  services: GatewayServices,
  period: UsagePeriod,
  selection: RecordSelection,
): Promise<ActivityRow[]> {
  if (selection.nothingVisible) return [];
  const [rollupDays, running] = await Promise.all([
    mapWithConcurrency(periodDays(period), rollupReadConcurrency, (day) =>
      queryRollupDay(services.rollups, {
        day,
        // Calendar-day periods cover whole days (today up to now), exactly what a day's totals hold.
        hours: period.bucket === 'day' ? 'day-totals' : hoursOfDay(period, day),
        memberId: selection.memberId,
        keyId: selection.keyId,
      }),
    ),
    readRunningRecords(services, period, selection),
  ]);
  return [...rollupDays.flat().map(activityFromRollup), ...running.map(activityFromRunningRecord)];
}

/**
 * The UTC days on which the selection, providers included, has activity: where matching records can be. The
 * rollups are small next to the records, so reading them first spares a sparse filter most of the record reads.
 */
export async function activeDays(
  services: GatewayServices,
  period: UsagePeriod,
  selection: RecordSelection,
): Promise<Set<string>> {
  const wanted = new Set(selection.providers);
  const rows = await readActivity(services, period, selection);
  return new Set(
    rows.filter((row) => wanted.size === 0 || wanted.has(row.provider)).map((row) => row.hour.slice(0, 10)),
  );
}

/**
 * Records still in state `running`. No request runs longer than its lease: when a lease expires the reaper
 * settles the request as failed (and it moves into the rollups). So only the last two lease lengths can hold
 * running records, and that short, recent range is all this reads, whatever the period.
 */
async function readRunningRecords(
  services: GatewayServices,
  period: UsagePeriod,
  selection: RecordSelection,
): Promise<UsageRecord[]> {
  const notBefore = new Date(services.now().getTime() - 2 * services.config.leaseTtlMs);
  const { from, to } = startedAtBounds(period, notBefore);
  if (from > to) return [];
  const recent = { ...period, start: new Date(from) };
  const running: UsageRecord[] = [];
  for (const read of recordReads(recent, selection)) {
    const pages = recordsNewestFirst(services.usage, read.partition, {
      from: read.from,
      to: read.to,
      keyId: selection.keyId,
      runningOnly: true,
      pageSize: 1_000,
    });
    for await (const page of pages) running.push(...page);
  }
  return running;
}
