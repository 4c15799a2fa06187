import type { GatewayStore, RecordPage } from '../store/store-port.ts';
import { startedAtBounds, type UsagePeriod } from './usage-period.ts';
import type { RecordSelection } from './usage-visibility.ts';

/**
 * The newest `limit` records matching the selection (spec §8: 200 for details, 1,000 for the CSV export), and
 * whether there are more.
 */
export async function readNewestRecords(
  store: GatewayStore,
  period: UsagePeriod,
  selection: RecordSelection,
  limit: number,
): Promise<RecordPage> {
  if (selection.nothingVisible) return { records: [], more: false };
  return store.records.newest({
    ...startedAtBounds(period),
    memberId: selection.memberId,
    keyId: selection.keyId,
    providers: selection.providers,
    limit,
  });
}
