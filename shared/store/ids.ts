import { randomBytes } from 'node:crypto';

/** Short, URL-safe, prefixed identifiers: the prefix tells a reader what kind of thing an id names. */
export function newId(prefix: 'mem' | 'key' | 'con' | 'req' | 'aud' | 'cred'): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
