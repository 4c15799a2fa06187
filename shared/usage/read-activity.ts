import type { GatewayServices } from '../config/gateway-services.ts';
import { type ActivityRow, activityFromRecord, activityFromRollup } from './usage-activity.ts';
import { periodCoverage, startedAtBounds, type UsagePeriod } from './usage-period.ts';
import type { RecordSelection } from './usage-visibility.ts';

/**
 * All activity of the period for the selection's scope and key, before the provider filter (the page needs
 * every provider the period saw to offer them as filter nodes): closed requests from the rollups of the whole
 * hours or days inside the period and from the records of the parts of an hour at its edges (so the rolling 24
 * hours is exact), plus the requests still running, read from their records.
 */
export async function readActivity(
  services: GatewayServices,
  period: UsagePeriod,
  selection: RecordSelection,
): Promise<ActivityRow[]> {
  if (selection.nothingVisible) return [];
  // On one machine, what settled a moment ago is still in the folder: in the rollups first, so totals are current.
  await services.rollupFolder.flush();
  const { store } = services;
  const whose = { memberId: selection.memberId, keyId: selection.keyId };
  const coverage = periodCoverage(period);
  const [rollups, edges, running] = await Promise.all([
    coverage.rollups ? store.rollups.read({ ...coverage.rollups, ...whose }) : [],
    Promise.all(coverage.edges.map((edge) => store.records.newest({ ...edge, ...whose, state: 'closed' }))),
    readRunningRecords(services, period, selection),
  ]);
  return [
    ...rollups.map(activityFromRollup),
    ...edges.flatMap((page) => page.records).map(activityFromRecord),
    ...running.map(activityFromRecord),
  ];
}

/**
 * Records still in state `running`. No request runs longer than its lease: when a lease expires the reaper
 * settles the request as failed (and it moves into the rollups). So only the last two lease lengths can hold
 * running records, and that short, recent range is all this reads, whatever the period.
 */
async function readRunningRecords(services: GatewayServices, period: UsagePeriod, selection: RecordSelection) {
  const notBefore = new Date(services.now().getTime() - 2 * services.config.leaseTtlMs);
  const { from, to } = startedAtBounds(period, notBefore);
  if (from > to) return [];
  const page = await services.store.records.newest({
    from,
    to,
    memberId: selection.memberId,
    keyId: selection.keyId,
    state: 'running',
  });
  return page.records;
}
