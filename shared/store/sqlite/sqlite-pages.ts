import { StoreCursorError } from '../store-errors.ts';
import type { KeyPageQuery, MemberPageQuery, MemberToday } from '../store-port.ts';
import type { Statements } from './sqlite-statements.ts';

/**
 * Paged reads of members and keys, oldest first by (created_at, id), each one indexed range read from the
 * position after the page before (`after`: the last row's `created_at` and id, as JSON). Name filters are checked
 * on the rows of the range, so a page reads as far as it needs to and no further.
 */
interface Position {
  createdAt: string;
  id: string;
}

const positionOf = (row: { created_at: string; id: string }): string =>
  JSON.stringify({ createdAt: row.created_at, id: row.id } satisfies Position);

function readPosition(after: string | undefined): Position | undefined {
  if (after === undefined) return undefined;
  let parsed: Partial<Position> | null;
  try {
    parsed = JSON.parse(after) as Partial<Position> | null;
  } catch {
    throw new StoreCursorError();
  }
  if (typeof parsed?.createdAt !== 'string' || typeof parsed.id !== 'string') throw new StoreCursorError();
  return { createdAt: parsed.createdAt, id: parsed.id };
}

/** `LIKE` with the user's text taken literally. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

function pageRows<Row extends { created_at: string; id: string }>(
  statements: Statements,
  table: 'members' | 'keys',
  conditions: string[],
  values: unknown[],
  limit: number,
  after: string | undefined,
): { rows: Row[]; next: string | undefined } {
  const position = readPosition(after);
  if (position) {
    conditions.push('(created_at, id) > (?, ?)');
    values.push(position.createdAt, position.id);
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const rows = statements
    .get(`SELECT * FROM ${table} ${where} ORDER BY created_at, id LIMIT ?`)
    .all(...values, limit + 1) as Row[];
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, next: rows.length > limit && last ? positionOf(last) : undefined };
}

export function memberPage<Row extends { created_at: string; id: string }>(
  statements: Statements,
  query: MemberPageQuery,
): { rows: Row[]; next: string | undefined } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  if (query.status !== undefined) {
    conditions.push('status = ?');
    values.push(query.status);
  }
  if (query.name !== undefined) {
    // SQLite's LIKE is case-insensitive for ASCII; lower() on both sides covers the rest it knows.
    conditions.push("lower(name) LIKE lower(?) ESCAPE '\\'");
    values.push(likePattern(query.name));
  }
  return pageRows<Row>(statements, 'members', conditions, values, query.limit, query.after);
}

export function keyPage<Row extends { created_at: string; id: string }>(
  statements: Statements,
  query: KeyPageQuery,
): { rows: Row[]; next: string | undefined } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  if (query.memberId !== undefined) {
    conditions.push('member_id = ?');
    values.push(query.memberId);
  }
  if (query.name !== undefined) {
    conditions.push("lower(name) LIKE lower(?) ESCAPE '\\'");
    values.push(likePattern(query.name));
  }
  const now = query.now.toISOString();
  if (query.state === 'revoked') conditions.push("state = 'revoked'");
  if (query.state === 'active') {
    conditions.push("state = 'active' AND (expires_at IS NULL OR expires_at > ?)");
    values.push(now);
  }
  if (query.state === 'expired') {
    conditions.push("state = 'active' AND expires_at IS NOT NULL AND expires_at <= ?");
    values.push(now);
  }
  return pageRows<Row>(statements, 'keys', conditions, values, query.limit, query.after);
}

/** Three indexed point reads per member: the day's tokens, its leases' reservations, its live keys. */
export function membersToday(
  statements: Statements,
  memberIds: readonly string[],
  day: string,
  now: Date,
): Map<string, MemberToday> {
  const today = new Map<string, MemberToday>();
  for (const memberId of memberIds) {
    const tokens = statements.get('SELECT tokens FROM token_days WHERE member_id = ? AND day = ?').get(memberId, day) as
      | { tokens: number }
      | undefined;
    const { reserved } = statements
      .get('SELECT coalesce(sum(reserved), 0) AS reserved FROM leases WHERE member_id = ? AND day = ?')
      .get(memberId, day) as { reserved: number };
    const { live } = statements
      .get(
        `SELECT count(*) AS live FROM keys WHERE member_id = ? AND state = 'active'
         AND (expires_at IS NULL OR expires_at > ?)`,
      )
      .get(memberId, now.toISOString()) as { live: number };
    const total = tokens?.tokens ?? 0;
    today.set(memberId, { used: Math.max(0, total - reserved), reserved, liveKeys: live });
  }
  return today;
}
