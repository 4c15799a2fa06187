import { badRequest } from '../http/gateway-error.ts';

/**
 * Opaque list cursors, as hex: the read stage refuses query values that look like credentials (long base64-like
 * runs, shared/auth/credential-like.ts), and hex carries at most 4 bits per character, so it passes.
 */
export function encodeCursor(position: object): string {
  return Buffer.from(JSON.stringify(position)).toString('hex');
}

/** The position a cursor holds; anything else (tampered, truncated, another list's) is a 400 `invalid_cursor`. */
export function decodeCursor<Position>(cursor: string, isPosition: (value: unknown) => value is Position): Position {
  let value: unknown;
  try {
    if (!/^([0-9a-f]{2})+$/.test(cursor)) throw new Error('not hex');
    value = JSON.parse(Buffer.from(cursor, 'hex').toString('utf8'));
  } catch {
    throw badRequest('invalid_cursor', 'The cursor is not one this list gave.');
  }
  if (!isPosition(value)) throw badRequest('invalid_cursor', 'The cursor is not one this list gave.');
  return value;
}

/** Query parameter `limit`: 1 to 200, 50 when absent. */
export function pageLimit(raw: string | null, fallback = 50, maximum = 200): number {
  if (raw === null) return fallback;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > maximum) {
    throw badRequest('invalid_query', `limit: a whole number from 1 to ${maximum}.`);
  }
  return limit;
}
