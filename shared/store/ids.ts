import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from the system's generator a few kilobytes at a time: every request takes a new id, and one
 * `randomBytes(12)` call per id (a trip into the generator and a fresh buffer each time) cost about 25 µs of a
 * request's CPU. The bytes are the same cryptographically strong ones, each handed out once.
 */
const pool = Buffer.alloc(4_096);
let poolOffset = pool.length;
const idBytes = 12;

function takeRandomBytes(): Buffer {
  if (poolOffset + idBytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const taken = pool.subarray(poolOffset, poolOffset + idBytes);
  poolOffset += idBytes;
  return taken;
}

/** Short, URL-safe, prefixed identifiers: the prefix tells a reader what kind of thing an id names. */
export function newId(prefix: 'mem' | 'key' | 'con' | 'req' | 'aud' | 'cred'): string {
  return `${prefix}_${takeRandomBytes().toString('base64url')}`;
}
