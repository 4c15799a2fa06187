import type { RollupItem } from '../store/rollup-queries.ts';
import type { UsageRecord } from '../store/usage-record-store.ts';

/**
 * One slice of activity that totals, charts and the routing map all fold over: an hourly rollup (closed
 * requests, completed or failed) or one request still running (not in any rollup until it settles).
 */
export interface ActivityRow {
  /** `YYYY-MM-DDTHH` of the hour the requests started in. */
  hour: string;
  memberId: string;
  keyId: string;
  upstream: string;
  provider: string;
  model: string;
  requests: number;
  failed: number;
  running: number;
  /** Charge of the closed requests; a running request has a reservation, not yet a charge. */
  charge: number;
  inputTokens: number;
  inputTokensReported: number;
  cachedInputTokens: number;
  cachedInputTokensReported: number;
  outputTokens: number;
  outputTokensReported: number;
}

export function activityFromRollup(item: RollupItem): ActivityRow {
  return {
    // A day's total counts from the day's first hour, which is where a day bucket starts.
    hour: `${item.pk.slice('day#'.length)}T${item.hour ?? '00'}`,
    memberId: item.memberId,
    keyId: item.keyId,
    upstream: item.upstream,
    provider: item.provider,
    model: item.model,
    requests: item.requests ?? 0,
    failed: item.failed ?? 0,
    running: 0,
    charge: item.charge ?? 0,
    inputTokens: item.inputTokens ?? 0,
    inputTokensReported: item.inputTokensReported ?? 0,
    cachedInputTokens: item.cachedInputTokens ?? 0,
    cachedInputTokensReported: item.cachedInputTokensReported ?? 0,
    outputTokens: item.outputTokens ?? 0,
    outputTokensReported: item.outputTokensReported ?? 0,
  };
}

export function activityFromRunningRecord(record: UsageRecord): ActivityRow {
  return {
    hour: record.startedAt.slice(0, 13),
    memberId: record.memberId,
    keyId: record.keyId,
    upstream: record.upstream,
    provider: record.provider,
    model: record.model,
    requests: 1,
    failed: 0,
    running: 1,
    charge: 0,
    inputTokens: 0,
    inputTokensReported: 0,
    cachedInputTokens: 0,
    cachedInputTokensReported: 0,
    outputTokens: 0,
    outputTokensReported: 0,
  };
}
