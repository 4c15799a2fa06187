import type { UsageRecord } from '../store/usage-records.ts';

/**
 * One request as the details table and the CSV export show it. `null` means unknown (a breakdown the provider
 * did not report) or not yet known (a running request has no status, end, charge or source).
 */
export interface DetailRow {
  id: string;
  startedAt: string;
  endedAt: string | null;
  memberId: string;
  keyId: string;
  keyLabel: string;
  upstream: string;
  provider: string;
  model: string;
  wire: string;
  stream: boolean;
  state: 'running' | 'completed' | 'failed';
  status: number | null;
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  charge: number | null;
  reserved: number;
  source: 'measured' | 'conservative' | null;
  durationMs: number | null;
}

export function toDetailRow(record: UsageRecord, keyLabel: (keyId: string) => string): DetailRow {
  const common = {
    id: record.id,
    startedAt: record.startedAt,
    memberId: record.memberId,
    keyId: record.keyId,
    keyLabel: keyLabel(record.keyId),
    upstream: record.upstream,
    provider: record.provider,
    model: record.model,
    wire: record.wire,
    stream: record.stream,
    reserved: record.reserved,
  };
  if (record.state === 'running') {
    return {
      ...common,
      state: 'running',
      endedAt: null,
      status: null,
      inputTokens: null,
      cachedInputTokens: null,
      outputTokens: null,
      charge: null,
      source: null,
      durationMs: null,
    };
  }
  return {
    ...common,
    state: record.state,
    endedAt: record.endedAt,
    status: record.status,
    // Records written before a breakdown was recorded lack the attribute: that too is unknown (spec §2.4).
    inputTokens: record.inputTokens ?? null,
    cachedInputTokens: record.cachedInputTokens ?? null,
    outputTokens: record.outputTokens ?? null,
    charge: record.charge,
    source: record.source,
    durationMs: record.durationMs,
  };
}
