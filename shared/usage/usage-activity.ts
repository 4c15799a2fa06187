import type { RollupRow, UsageRecord } from '../store/usage-records.ts';

/**
 * One slice of activity that totals, charts and the routing map all fold over: a rollup row (closed requests,
 * completed or failed) or one request read from its record (at a period's edge, or still running and so not in
 * any rollup until it settles).
 */
export interface ActivityRow extends RollupRow {
  running: number;
}

export function activityFromRollup(row: RollupRow): ActivityRow {
  return { ...row, running: 0 };
}

export function activityFromRecord(record: UsageRecord): ActivityRow {
  const identity = {
    hour: record.startedAt.slice(0, 13),
    memberId: record.memberId,
    keyId: record.keyId,
    upstream: record.upstream,
    provider: record.provider,
    model: record.model,
    requests: 1,
  };
  if (record.state === 'running') {
    return {
      ...identity,
      failed: 0,
      running: 1,
      // A running request has a reservation, not yet a charge.
      charge: 0,
      inputTokens: 0,
      inputTokensReported: 0,
      cachedInputTokens: 0,
      cachedInputTokensReported: 0,
      outputTokens: 0,
      outputTokensReported: 0,
    };
  }
  // Records written before a breakdown was recorded lack the attribute: that too is unknown (spec §2.4).
  const reported = (value: number | null | undefined) => (value === null || value === undefined ? 0 : 1);
  return {
    ...identity,
    failed: record.state === 'failed' ? 1 : 0,
    running: 0,
    charge: record.charge,
    inputTokens: record.inputTokens ?? 0,
    inputTokensReported: reported(record.inputTokens),
    cachedInputTokens: record.cachedInputTokens ?? 0,
    cachedInputTokensReported: reported(record.cachedInputTokens),
    outputTokens: record.outputTokens ?? 0,
    outputTokensReported: reported(record.outputTokens),
  };
}
