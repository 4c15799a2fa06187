import { diedOutcome } from '../accounting/reap.ts';
import { deadlineIn } from '../clock/monotonic-deadline.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import type { EarlierRecordsMigration } from '../store/store-port.ts';

/**
 * How long one call may keep starting steps of the migration: a step is a page of records or a record partition's
 * fold, a second or two at most, so a call ends well inside its function's time-out (infra/function-profiles.ts and
 * scheduled-functions.ts hold the time-outs to these, test/infra/gateway-stack.test.ts checks them).
 */
export const migrationBudgetMs = {
  /** An admin request: the CLI calls again until the migration completes or must wait. */
  adminRequest: 15_000,
  /** A pass of the scheduled migration, every five minutes until it completes. */
  scheduledPass: 60_000,
} as const;

/**
 * Moves the migration of the earlier DynamoDB layout's usage history on (`usage migrate-earlier-records`, and the
 * scheduled pass): records carried into the current layout and folded into its rollups, resumable, idempotent and
 * bounded by `budgetMs` (store-port.ts, `EarlierRecordsStore`).
 */
export function migrateEarlierRecords(
  services: GatewayServices,
  budgetMs: number,
  pageSize?: number,
): Promise<EarlierRecordsMigration> {
  return services.store.earlierRecords.migrate({
    now: services.now(),
    deadline: deadlineIn(budgetMs),
    leaseTtlMs: services.config.leaseTtlMs,
    closeDied: diedOutcome,
    pageSize,
  });
}
