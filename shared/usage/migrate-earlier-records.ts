import { deadlineIn } from '../clock/monotonic-deadline.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import type { EarlierRecordsMigration } from '../store/store-port.ts';
import type { RecordOutcome, RunningRecord } from '../store/usage-records.ts';

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

/** The status a request whose process died is recorded with (as shared/accounting/reap.ts records it). */
const diedStatus = 500;

/**
 * An earlier request whose process died while it ran, closed as the reaper closes such a request
 * (shared/accounting/reap.ts through settle.ts): failed with status 500, the reservation kept as the charge,
 * nothing measured, ended when it was found.
 */
function closeDied(record: RunningRecord, now: Date): RecordOutcome {
  return {
    state: 'failed',
    status: diedStatus,
    endedAt: now.toISOString(),
    durationMs: Math.max(0, now.getTime() - Date.parse(record.startedAt)),
    inputTokens: null,
    cachedInputTokens: null,
    outputTokens: null,
    charge: record.reserved,
    source: 'conservative',
  };
}

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
    closeDied,
    pageSize,
  });
}
