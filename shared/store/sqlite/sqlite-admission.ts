import {
  type AdmissionCounters,
  type AdmissionRequest,
  type AdmissionResult,
  type ExpiredLease,
  refusalFor,
} from '../admission.ts';
import type { KeyAdmissionState, MemberAccount } from '../control-items.ts';
import type { AdmissionStore } from '../store-port.ts';
import type { ClosedRequest } from '../usage-records.ts';
import { toMemberProfile } from './sqlite-control.ts';
import { membersToday } from './sqlite-pages.ts';
import { closeRecordRow, insertRunningRow } from './sqlite-records.ts';
import type { Statements } from './sqlite-statements.ts';

interface LeaseRow {
  request_id: string;
  member_id: string;
  key_id: string;
  expires_at: number;
  reserved: number;
  day: string;
}

const toExpiredLease = (row: LeaseRow): ExpiredLease => ({
  memberId: row.member_id,
  requestId: row.request_id,
  keyId: row.key_id,
  expiresAt: row.expires_at,
  reserved: row.reserved,
  day: row.day,
});

/** Everything one admission checks, read in one statement inside its transaction. */
const countersSql = `
  SELECT
    (SELECT status FROM members WHERE id = @memberId) AS memberStatus,
    (SELECT state FROM keys WHERE id = @keyId AND member_id = @memberId) AS keyState,
    (SELECT generation FROM keys WHERE id = @keyId AND member_id = @memberId) AS keyGeneration,
    (SELECT version FROM members WHERE id = @memberId) AS memberVersion,
    (SELECT version FROM keys WHERE id = @keyId AND member_id = @memberId) AS keyVersion,
    (SELECT tokens FROM token_days WHERE member_id = @memberId AND day = @day) AS tokensToday,
    (SELECT requests FROM member_minutes WHERE member_id = @memberId AND minute = @minute) AS memberMinute,
    (SELECT requests FROM key_minutes WHERE key_id = @keyId AND minute = @minute) AS keyMinute,
    (SELECT count(*) FROM leases WHERE member_id = @memberId) AS memberLeases,
    (SELECT count(*) FROM leases WHERE member_id = @memberId AND key_id = @keyId) AS keyLeases,
    (SELECT requests FROM holder_days WHERE member_id = @memberId AND day = @day) AS holderToday`;

interface CountersRow {
  memberStatus: AdmissionCounters['memberStatus'] | null;
  keyState: KeyAdmissionState['state'] | null;
  keyGeneration: number | null;
  memberVersion: number | null;
  keyVersion: number | null;
  tokensToday: number | null;
  memberMinute: number | null;
  keyMinute: number | null;
  memberLeases: number;
  keyLeases: number;
  holderToday: number | null;
}

function toCounters(row: CountersRow): AdmissionCounters {
  return {
    memberStatus: row.memberStatus ?? undefined,
    key:
      row.keyState === null || row.keyGeneration === null
        ? undefined
        : { state: row.keyState, generation: row.keyGeneration },
    tokensToday: row.tokensToday ?? 0,
    memberRequestsThisMinute: row.memberMinute ?? 0,
    keyRequestsThisMinute: row.keyMinute ?? 0,
    memberLeases: row.memberLeases,
    keyLeases: row.keyLeases,
    holderRequestsToday: row.holderToday ?? 0,
    // One writer, one transaction: the floor is the stored version itself.
    policyFloor: { member: row.memberVersion ?? 0, key: row.keyVersion ?? 0 },
  };
}

/** A member's charged tokens of a day, in one statement: the day's count and what its leases still hold reserved. */
const chargedTodaySql = `
  SELECT
    (SELECT 1 FROM members WHERE id = @memberId) AS known,
    (SELECT tokens FROM token_days WHERE member_id = @memberId AND day = @day) AS tokens,
    (SELECT coalesce(sum(reserved), 0) FROM leases WHERE member_id = @memberId AND day = @day) AS reserved`;

type CounterTable = 'token_days' | 'holder_days' | 'member_minutes' | 'key_minutes';

/** Adds to one counter row, creating it at the amount: the SQL of each counter table, written once. */
const addToCounterSql: Readonly<Record<CounterTable, string>> = Object.fromEntries(
  (
    [
      ['token_days', 'member_id', 'day', 'tokens'],
      ['holder_days', 'member_id', 'day', 'requests'],
      ['member_minutes', 'member_id', 'minute', 'requests'],
      ['key_minutes', 'key_id', 'minute', 'requests'],
    ] as const
  ).map(([table, ownerColumn, bucketColumn, counter]) => [
    table,
    `INSERT INTO ${table} (${ownerColumn}, ${bucketColumn}, ${counter}) VALUES (?, ?, ?)
     ON CONFLICT DO UPDATE SET ${counter} = ${counter} + excluded.${counter}`,
  ]),
) as Record<CounterTable, string>;

/** Rate windows older than this are over; allowance days are kept a week for anyone reading them. */
const staleMinuteMs = 2 * 60_000;
const staleDayMs = 7 * 24 * 60 * 60_000;

export function sqliteAdmission(statements: Statements): AdmissionStore {
  const addTo = (table: CounterTable, owner: string, bucket: string, amount: number) => {
    statements.get(addToCounterSql[table]).run(owner, bucket, amount);
  };
  const memberExpiredLeases = (memberId: string, now: number) =>
    (
      statements
        .get('SELECT * FROM leases WHERE member_id = ? AND expires_at <= ? ORDER BY expires_at')
        .all(memberId, now) as LeaseRow[]
    ).map(toExpiredLease);

  /**
   * ONE `BEGIN IMMEDIATE` transaction: the same checks as the DynamoDB engine's conditional write (`refusalFor`),
   * then every counter, the lease and the running record, or nothing. The write lock is taken first, so no other admission can move
   * the counters between the check and the write: exact under any concurrency.
   */
  const admitInTransaction = (request: AdmissionRequest): AdmissionResult =>
    statements.write(() => {
      const { memberId, keyId, day, minute } = request;
      const counters = toCounters(statements.get(countersSql).get({ memberId, keyId, day, minute }) as CountersRow);
      const refusal = refusalFor(counters, request);
      if (refusal) {
        return { admitted: false, refusal, expiredLeases: memberExpiredLeases(request.memberId, request.now) };
      }
      addTo('token_days', request.memberId, request.day, request.reserve);
      addTo('member_minutes', request.memberId, request.minute, 1);
      addTo('key_minutes', request.keyId, request.minute, 1);
      if (request.limits.holderDailyRequests !== undefined) addTo('holder_days', request.memberId, request.day, 1);
      statements
        .get('INSERT INTO leases (request_id, member_id, key_id, expires_at, reserved, day) VALUES (?, ?, ?, ?, ?, ?)')
        .run(request.requestId, request.memberId, request.keyId, request.leaseExpiresAt, request.reserve, request.day);
      if (request.running === undefined) return { admitted: true };
      // The running record commits with the lease: one write to the log before dispatch, not two.
      insertRunningRow(statements, request.running);
      return { admitted: true, recordWritten: true };
    });

  /** ONE transaction: the lease (the gate), the day's charge and the closed record move together or not at all. */
  const settleInTransaction = (closed: ClosedRequest) =>
    statements.write(() => {
      const { record, outcome } = closed;
      if (statements.get('DELETE FROM leases WHERE request_id = ?').run(record.id).changes === 0) {
        return { released: false, closed: false };
      }
      addTo('token_days', record.memberId, record.day, outcome.charge - record.reserved);
      return { released: true, closed: closeRecordRow(statements, closed) };
    });

  return {
    admit: async (request) => admitInTransaction(request),
    settle: async (closed) => settleInTransaction(closed),
    today: async (memberIds, day, now) => membersToday(statements, memberIds, day, now),

    async chargedToday(memberId, day) {
      const row = statements.get(chargedTodaySql).get({ memberId, day }) as {
        known: number | null;
        tokens: number | null;
        reserved: number;
      };
      if (row.known === null) return undefined;
      return Math.max(0, (row.tokens ?? 0) - row.reserved);
    },

    async account(memberId) {
      const member = statements.get('SELECT * FROM members WHERE id = ?').get(memberId) as
        | Parameters<typeof toMemberProfile>[0]
        | undefined;
      if (!member) return undefined;
      const account: MemberAccount = {
        ...toMemberProfile(member),
        keys: {},
        tokenDays: {},
        minutes: {},
        keyMinutes: {},
        leases: {},
        keyLeases: {},
        holderDays: {},
      };
      const keys = statements
        .get('SELECT id, state, generation, rotated_at FROM keys WHERE member_id = ?')
        .all(memberId) as {
        id: string;
        state: KeyAdmissionState['state'];
        generation: number;
        rotated_at: string | null;
      }[];
      for (const key of keys) {
        account.keys[key.id] = {
          generation: key.generation,
          state: key.state,
          ...(key.rotated_at ? { rotatedAt: key.rotated_at } : {}),
        };
        account.keyMinutes[key.id] = {};
        account.keyLeases[key.id] = {};
      }
      const buckets = (sql: string) => statements.get(sql).all(memberId) as { bucket: string; value: number }[];
      for (const row of buckets('SELECT day AS bucket, tokens AS value FROM token_days WHERE member_id = ?')) {
        account.tokenDays[row.bucket] = row.value;
      }
      for (const row of buckets('SELECT day AS bucket, requests AS value FROM holder_days WHERE member_id = ?')) {
        account.holderDays[row.bucket] = row.value;
      }
      for (const row of buckets('SELECT minute AS bucket, requests AS value FROM member_minutes WHERE member_id = ?')) {
        account.minutes[row.bucket] = row.value;
      }
      const keyMinutes = statements
        .get(
          'SELECT key_id, minute, requests FROM key_minutes WHERE key_id IN (SELECT id FROM keys WHERE member_id = ?)',
        )
        .all(memberId) as { key_id: string; minute: string; requests: number }[];
      for (const row of keyMinutes) {
        const minutes = account.keyMinutes[row.key_id] ?? {};
        minutes[row.minute] = row.requests;
        account.keyMinutes[row.key_id] = minutes;
      }
      const leases = statements.get('SELECT * FROM leases WHERE member_id = ?').all(memberId) as LeaseRow[];
      for (const lease of leases) {
        account.leases[lease.request_id] = {
          keyId: lease.key_id,
          expiresAt: lease.expires_at,
          reserved: lease.reserved,
          day: lease.day,
        };
        const keyLeases = account.keyLeases[lease.key_id] ?? {};
        keyLeases[lease.request_id] = lease.expires_at;
        account.keyLeases[lease.key_id] = keyLeases;
      }
      return account;
    },

    async expiredLeases(now) {
      const rows = statements
        .get('SELECT * FROM leases WHERE expires_at <= ? ORDER BY expires_at')
        .all(now) as LeaseRow[];
      return rows.map(toExpiredLease);
    },

    async pruneStale(now) {
      const minuteCutoff = new Date(now.getTime() - staleMinuteMs).toISOString().slice(0, 16);
      const dayCutoff = new Date(now.getTime() - staleDayMs).toISOString().slice(0, 10);
      return statements.write(
        () =>
          statements.get('DELETE FROM member_minutes WHERE minute < ?').run(minuteCutoff).changes +
          statements.get('DELETE FROM key_minutes WHERE minute < ?').run(minuteCutoff).changes +
          statements.get('DELETE FROM token_days WHERE day < ?').run(dayCutoff).changes +
          statements.get('DELETE FROM holder_days WHERE day < ?').run(dayCutoff).changes,
      );
    },
  };
}
