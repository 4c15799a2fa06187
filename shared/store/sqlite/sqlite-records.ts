import type { RecordQuery, UsageRecordStore } from '../store-port.ts';
import type { ClosedRequest, RunningRecord, UsageRecord } from '../usage-records.ts';
import type { Statements } from './sqlite-statements.ts';

interface RecordRow {
  id: string;
  member_id: string;
  key_id: string;
  provider: string;
  model: string;
  connection_id: string;
  upstream: string;
  wire: string;
  stream: number;
  started_at: string;
  day: string;
  reserved: number;
  state: UsageRecord['state'];
  status: number | null;
  ended_at: string | null;
  duration_ms: number | null;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  output_tokens: number | null;
  charge: number | null;
  source: 'measured' | 'conservative' | null;
}

function toUsageRecord(row: RecordRow): UsageRecord {
  const admitted: Omit<RunningRecord, 'state'> = {
    id: row.id,
    memberId: row.member_id,
    keyId: row.key_id,
    provider: row.provider,
    model: row.model,
    connectionId: row.connection_id,
    upstream: row.upstream,
    wire: row.wire,
    stream: row.stream === 1,
    startedAt: row.started_at,
    day: row.day,
    reserved: row.reserved,
  };
  if (row.state === 'running') return { ...admitted, state: 'running' };
  return {
    ...admitted,
    state: row.state,
    status: row.status ?? 0,
    endedAt: row.ended_at ?? row.started_at,
    durationMs: row.duration_ms ?? 0,
    inputTokens: row.input_tokens,
    cachedInputTokens: row.cached_input_tokens,
    outputTokens: row.output_tokens,
    charge: row.charge ?? 0,
    source: row.source ?? 'conservative',
  };
}

const admittedColumns = (record: RunningRecord) => ({
  id: record.id,
  member_id: record.memberId,
  key_id: record.keyId,
  provider: record.provider,
  model: record.model,
  connection_id: record.connectionId,
  upstream: record.upstream,
  wire: record.wire,
  stream: record.stream ? 1 : 0,
  started_at: record.startedAt,
  day: record.day,
  reserved: record.reserved,
});

/**
 * Closes a record once, in the caller's transaction: writes the whole record when the running one never arrived,
 * and otherwise only the outcome, and only while the record is running (what admission knew stays as written).
 */
export function closeRecordRow(statements: Statements, { record, outcome }: ClosedRequest): boolean {
  return (
    statements
      .get(
        `INSERT INTO records (id, member_id, key_id, provider, model, connection_id, upstream, wire, stream, started_at,
           day, reserved, state, status, ended_at, duration_ms, input_tokens, cached_input_tokens, output_tokens,
           charge, source)
         VALUES (@id, @member_id, @key_id, @provider, @model, @connection_id, @upstream, @wire, @stream, @started_at,
           @day, @reserved, @state, @status, @ended_at, @duration_ms, @input_tokens, @cached_input_tokens,
           @output_tokens, @charge, @source)
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, status = excluded.status, ended_at = excluded.ended_at,
           duration_ms = excluded.duration_ms, input_tokens = excluded.input_tokens,
           cached_input_tokens = excluded.cached_input_tokens, output_tokens = excluded.output_tokens,
           charge = excluded.charge, source = excluded.source
         WHERE records.state = 'running'`,
      )
      .run({
        ...admittedColumns(record),
        state: outcome.state,
        status: outcome.status,
        ended_at: outcome.endedAt,
        duration_ms: outcome.durationMs,
        input_tokens: outcome.inputTokens,
        cached_input_tokens: outcome.cachedInputTokens,
        output_tokens: outcome.outputTokens,
        charge: outcome.charge,
        source: outcome.source,
      }).changes === 1
  );
}

/**
 * Records newest first: one SQL query over the `started_at` indexes (the member's own when the query names a
 * member), filtered in SQL, with one more row than the limit to know whether there are more.
 */
function newestSql(query: RecordQuery): string {
  const conditions = ['started_at BETWEEN @from AND @to'];
  if (query.memberId !== undefined) conditions.push('member_id = @memberId');
  if (query.keyId !== undefined) conditions.push('key_id = @keyId');
  if (query.providers && query.providers.length > 0) {
    conditions.push('provider IN (SELECT value FROM json_each(@providers))');
  }
  if (query.state === 'running') conditions.push("state = 'running'");
  if (query.state === 'closed') conditions.push("state <> 'running'");
  const limit = query.limit === undefined ? '' : ' LIMIT @limit';
  return `SELECT * FROM records WHERE ${conditions.join(' AND ')} ORDER BY started_at DESC, id DESC${limit}`;
}

/** Writes a running record unless one with its id is there (closed already, or written before), in any transaction. */
export function insertRunningRow(statements: Statements, record: RunningRecord): void {
  statements
    .get(
      `INSERT INTO records (id, member_id, key_id, provider, model, connection_id, upstream, wire, stream,
         started_at, day, reserved, state)
       VALUES (@id, @member_id, @key_id, @provider, @model, @connection_id, @upstream, @wire, @stream,
         @started_at, @day, @reserved, 'running')
       ON CONFLICT (id) DO NOTHING`,
    )
    .run(admittedColumns(record));
}

export function sqliteRecords(statements: Statements): UsageRecordStore {
  return {
    async putRunning(record) {
      insertRunningRow(statements, record);
    },

    close: async (closed) => statements.write(() => closeRecordRow(statements, closed)),

    async get({ id }) {
      const row = statements.get('SELECT * FROM records WHERE id = ?').get(id) as RecordRow | undefined;
      return row && toUsageRecord(row);
    },

    async newest(query) {
      const parameters: Record<string, unknown> = { from: query.from, to: query.to };
      if (query.memberId !== undefined) parameters.memberId = query.memberId;
      if (query.keyId !== undefined) parameters.keyId = query.keyId;
      if (query.providers && query.providers.length > 0) parameters.providers = JSON.stringify(query.providers);
      if (query.limit !== undefined) parameters.limit = query.limit + 1;
      const rows = statements.get(newestSql(query)).all(parameters) as RecordRow[];
      const more = query.limit !== undefined && rows.length > query.limit;
      return { records: (more ? rows.slice(0, query.limit) : rows).map(toUsageRecord), more };
    },
  };
}
