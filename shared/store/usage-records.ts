/**
 * Usage records and rollups as the domain sees them, whichever engine keeps them. Metadata only: never a prompt,
 * an answer or a credential. A token figure the provider did not report is `null` (unknown), never 0.
 */
export type RecordState = 'running' | 'completed' | 'failed';
export type AccountingSource = 'measured' | 'conservative';

/** What is known of a request from admission on. */
export interface RunningRecord {
  id: string;
  memberId: string;
  keyId: string;
  provider: string;
  model: string;
  connectionId: string;
  upstream: string;
  wire: string;
  stream: boolean;
  startedAt: string;
  /** UTC day of `startedAt`, whose token count holds the reservation. */
  day: string;
  reserved: number;
  state: 'running';
}

export interface RecordOutcome {
  state: Exclude<RecordState, 'running'>;
  status: number;
  endedAt: string;
  durationMs: number;
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  charge: number;
  source: AccountingSource;
}

export type UsageRecord = Omit<RunningRecord, 'state'> & ({ state: 'running' } | RecordOutcome);

/** What finds a record again: its id, and what admission knew of it (an engine may keep records by member and time). */
export type RecordLocator = Pick<RunningRecord, 'id' | 'memberId' | 'startedAt'>;

/** A request that has ended: what admission knew of it and how it ended. What settlement and rollups take. */
export interface ClosedRequest {
  record: RunningRecord;
  outcome: RecordOutcome;
}

/**
 * One rollup row: the closed requests of one hour (or, read by day, one UTC day) for one member, key, upstream,
 * provider and model. Each token figure comes with the count of requests that reported it, so totals can say
 * "from 98 of 100 requests".
 */
export interface RollupRow {
  /** `YYYY-MM-DDTHH` of the hour the requests started in; a day's row carries its first hour, `T00`. */
  hour: string;
  memberId: string;
  keyId: string;
  upstream: string;
  provider: string;
  model: string;
  requests: number;
  failed: number;
  charge: number;
  inputTokens: number;
  inputTokensReported: number;
  cachedInputTokens: number;
  cachedInputTokensReported: number;
  outputTokens: number;
  outputTokensReported: number;
}

/** A stored record that has closed, as settlement knew it; undefined while it is running. */
export function closedRequestOf(record: UsageRecord): ClosedRequest | undefined {
  if (record.state === 'running') return undefined;
  const { state, status, endedAt, durationMs, inputTokens, cachedInputTokens, outputTokens, charge, source } = record;
  return {
    record: {
      id: record.id,
      memberId: record.memberId,
      keyId: record.keyId,
      provider: record.provider,
      model: record.model,
      connectionId: record.connectionId,
      upstream: record.upstream,
      wire: record.wire,
      stream: record.stream,
      startedAt: record.startedAt,
      day: record.day,
      reserved: record.reserved,
      state: 'running',
    },
    outcome: {
      state,
      status,
      endedAt,
      durationMs,
      inputTokens: inputTokens ?? null,
      cachedInputTokens: cachedInputTokens ?? null,
      outputTokens: outputTokens ?? null,
      charge,
      source,
    },
  };
}

/** The figures of one closed request as a rollup adds them. */
export function rollupFigures(closed: ClosedRequest): Omit<RollupRow, 'hour'> {
  const { record, outcome } = closed;
  return {
    memberId: record.memberId,
    keyId: record.keyId,
    upstream: record.upstream,
    provider: record.provider,
    model: record.model,
    requests: 1,
    failed: outcome.state === 'failed' ? 1 : 0,
    charge: outcome.charge,
    inputTokens: outcome.inputTokens ?? 0,
    inputTokensReported: outcome.inputTokens === null ? 0 : 1,
    cachedInputTokens: outcome.cachedInputTokens ?? 0,
    cachedInputTokensReported: outcome.cachedInputTokens === null ? 0 : 1,
    outputTokens: outcome.outputTokens ?? 0,
    outputTokensReported: outcome.outputTokens === null ? 0 : 1,
  };
}

export const rollupCounters = [
  'requests',
  'failed',
  'charge',
  'inputTokens',
  'inputTokensReported',
  'cachedInputTokens',
  'cachedInputTokensReported',
  'outputTokens',
  'outputTokensReported',
] as const;

/** The counters of a rollup row, which adding moves and nothing else does. */
export type RollupCounter = (typeof rollupCounters)[number];

/**
 * Closed requests folded into rollup rows by the hour they started in and their identity: however many requests
 * of one hour and identity, one row, so an engine adds them with one write.
 */
export function foldIntoRollups(closed: readonly ClosedRequest[]): RollupRow[] {
  const rows = new Map<string, RollupRow>();
  for (const request of closed) {
    const figures = rollupFigures(request);
    const hour = request.record.startedAt.slice(0, 13);
    const identity = [hour, figures.memberId, figures.keyId, figures.upstream, figures.provider, figures.model].join(
      '\n',
    );
    const row = rows.get(identity);
    if (!row) rows.set(identity, { hour, ...figures });
    else for (const counter of rollupCounters) row[counter] += figures[counter];
  }
  return [...rows.values()];
}

/** Rows of one identity added up: the day's total of its hours (the result carries the first row's hour). */
export function sumRollupRows(rows: readonly RollupRow[]): RollupRow {
  const [first, ...rest] = rows;
  if (!first) throw new Error('no rollup rows to add up');
  const total = { ...first };
  for (const row of rest) for (const counter of rollupCounters) total[counter] += row[counter];
  return total;
}

/**
 * One usage record of the earlier engine generation (0.1), as stored, apart from gateway records (spec §9). The
 * import removes prompt and answer bodies and credentials before a record gets here.
 */
export interface LegacyUsageRecord {
  /** `leg_` + a hash of the record's content, so the same line imported twice is the same record. */
  id: string;
  generation: '0.1';
  /** UTC ISO-8601. */
  timestamp: string;
  /** UTC day of `timestamp`, for whoever queries these records by period later. */
  day: string;
  requestId: string | null;
  keyId: string | null;
  memberId: string | null;
  provider: string;
  model: string;
  /** An HTTP status, or the outcome word the 0.1 engine wrote (such as "ok"). */
  status: number | string | null;
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  durationMs: number | null;
  /** The line's other fields as JSON text (a string, so no value of an unknown shape can break the record). */
  raw: string;
}

/** A stored 0.1 record with when it was first imported. */
export interface StoredLegacyUsageRecord extends LegacyUsageRecord {
  importedAt: string;
}

export interface LegacyImportResult {
  /** Records written by this call. */
  imported: number;
  /** Records that were already stored (an earlier import of the same line), left untouched. */
  skipped: number;
}
