import type { LegacyUsageStore, RollupStore } from '../store-port.ts';
import { foldIntoRollups, type RollupRow, type StoredLegacyUsageRecord } from '../usage-records.ts';
import type { Statements } from './sqlite-statements.ts';

const rollupColumns = `hour, member_id AS memberId, key_id AS keyId, upstream, provider, model`;
const rollupSums = `sum(requests) AS requests, sum(failed) AS failed, sum(charge) AS charge,
  sum(input_tokens) AS inputTokens, sum(input_tokens_reported) AS inputTokensReported,
  sum(cached_input_tokens) AS cachedInputTokens, sum(cached_input_tokens_reported) AS cachedInputTokensReported,
  sum(output_tokens) AS outputTokens, sum(output_tokens_reported) AS outputTokensReported`;

/** Hourly rollups; a day is the sum of its hours, which SQL adds up at read time over the primary key's range. */
export function sqliteRollups(statements: Statements): RollupStore {
  return {
    /** One transaction; each hour and identity is one upsert that adds, so concurrent adds never lose an update. */
    async add(closed) {
      const rows = foldIntoRollups(closed);
      statements.write(() => {
        for (const row of rows) {
          statements
            .get(
              `INSERT INTO rollups (hour, member_id, key_id, upstream, provider, model, requests, failed, charge,
                 input_tokens, input_tokens_reported, cached_input_tokens, cached_input_tokens_reported,
                 output_tokens, output_tokens_reported)
               VALUES (@hour, @memberId, @keyId, @upstream, @provider, @model, @requests, @failed, @charge,
                 @inputTokens, @inputTokensReported, @cachedInputTokens, @cachedInputTokensReported,
                 @outputTokens, @outputTokensReported)
               ON CONFLICT DO UPDATE SET requests = requests + excluded.requests, failed = failed + excluded.failed,
                 charge = charge + excluded.charge, input_tokens = input_tokens + excluded.input_tokens,
                 input_tokens_reported = input_tokens_reported + excluded.input_tokens_reported,
                 cached_input_tokens = cached_input_tokens + excluded.cached_input_tokens,
                 cached_input_tokens_reported = cached_input_tokens_reported + excluded.cached_input_tokens_reported,
                 output_tokens = output_tokens + excluded.output_tokens,
                 output_tokens_reported = output_tokens_reported + excluded.output_tokens_reported`,
            )
            .run(row);
        }
      });
    },

    /**
     * One transaction: the days' rollups deleted and summed again from their closed records, so no reader sees a
     * day half rebuilt.
     */
    async rebuild(days) {
      const range = { first: `${days.first}T00`, last: `${days.last}T23` };
      const span = { from: `${days.first}T00:00:00.000Z`, to: `${days.last}T23:59:59.999Z` };
      return statements.write(() => {
        statements.get('DELETE FROM rollups WHERE hour BETWEEN @first AND @last').run(range);
        const rows = statements
          .get(
            `INSERT INTO rollups (hour, member_id, key_id, upstream, provider, model, requests, failed, charge,
               input_tokens, input_tokens_reported, cached_input_tokens, cached_input_tokens_reported, output_tokens,
               output_tokens_reported)
             SELECT substr(started_at, 1, 13), member_id, key_id, upstream, provider, model, count(*),
               sum(state = 'failed'), sum(charge), sum(coalesce(input_tokens, 0)), count(input_tokens),
               sum(coalesce(cached_input_tokens, 0)), count(cached_input_tokens), sum(coalesce(output_tokens, 0)),
               count(output_tokens)
             FROM records WHERE started_at BETWEEN @from AND @to AND state <> 'running'
             GROUP BY substr(started_at, 1, 13), member_id, key_id, upstream, provider, model`,
          )
          .run(span).changes;
        const { records } = statements
          .get("SELECT count(*) AS records FROM records WHERE started_at BETWEEN @from AND @to AND state <> 'running'")
          .get(span) as { records: number };
        const dayCount = Math.round((Date.parse(days.last) - Date.parse(days.first)) / 86_400_000) + 1;
        return { days: dayCount, records, rows };
      });
    },

    async read(query) {
      const conditions = ['hour BETWEEN @first AND @last'];
      if (query.memberId !== undefined) conditions.push('member_id = @memberId');
      if (query.keyId !== undefined) conditions.push('key_id = @keyId');
      const parameters: Record<string, unknown> =
        query.by === 'hour'
          ? { first: query.first, last: query.last }
          : { first: `${query.first}T00`, last: `${query.last}T23` };
      if (query.memberId !== undefined) parameters.memberId = query.memberId;
      if (query.keyId !== undefined) parameters.keyId = query.keyId;
      const where = conditions.join(' AND ');
      const sql =
        query.by === 'hour'
          ? `SELECT ${rollupColumns}, ${rollupSums} FROM rollups WHERE ${where}
             GROUP BY hour, member_id, key_id, upstream, provider, model`
          : `SELECT substr(hour, 1, 10) || 'T00' AS hour, member_id AS memberId, key_id AS keyId, upstream, provider,
               model, ${rollupSums} FROM rollups WHERE ${where}
             GROUP BY substr(hour, 1, 10), member_id, key_id, upstream, provider, model`;
      return statements.get(sql).all(parameters) as RollupRow[];
    },
  };
}

interface LegacyRow {
  id: string;
  generation: '0.1';
  timestamp: string;
  day: string;
  request_id: string | null;
  key_id: string | null;
  member_id: string | null;
  provider: string;
  model: string;
  status: string | null;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  output_tokens: number | null;
  duration_ms: number | null;
  raw: string;
  imported_at: string;
}

export function sqliteLegacyUsage(statements: Statements): LegacyUsageStore {
  return {
    /** One transaction; a record whose id (the hash of its content) is stored already is skipped, untouched. */
    async importRecords(records, importedAt) {
      const at = importedAt.toISOString();
      const imported = statements.write(() => {
        let written = 0;
        for (const record of records) {
          written += statements
            .get(
              `INSERT INTO legacy_usage (id, generation, timestamp, day, request_id, key_id, member_id, provider, model,
                 status, input_tokens, cached_input_tokens, output_tokens, duration_ms, raw, imported_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (id) DO NOTHING`,
            )
            .run(
              record.id,
              record.generation,
              record.timestamp,
              record.day,
              record.requestId,
              record.keyId,
              record.memberId,
              record.provider,
              record.model,
              // A number or the engine's word: JSON keeps which it was.
              record.status === null ? null : JSON.stringify(record.status),
              record.inputTokens,
              record.cachedInputTokens,
              record.outputTokens,
              record.durationMs,
              record.raw,
              at,
            ).changes;
        }
        return written;
      });
      return { imported, skipped: records.length - imported };
    },

    async list() {
      const rows = statements.get('SELECT * FROM legacy_usage ORDER BY timestamp, id').all() as LegacyRow[];
      return rows.map(
        (row): StoredLegacyUsageRecord => ({
          id: row.id,
          generation: row.generation,
          timestamp: row.timestamp,
          day: row.day,
          requestId: row.request_id,
          keyId: row.key_id,
          memberId: row.member_id,
          provider: row.provider,
          model: row.model,
          status: row.status === null ? null : (JSON.parse(row.status) as number | string),
          inputTokens: row.input_tokens,
          cachedInputTokens: row.cached_input_tokens,
          outputTokens: row.output_tokens,
          durationMs: row.duration_ms,
          raw: row.raw,
          importedAt: row.imported_at,
        }),
      );
    },
  };
}
