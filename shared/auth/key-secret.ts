import { hash, randomBytes } from 'node:crypto';

/** A gateway key: `sk-<tag>-<secret>`, 256 bits of randomness, base64url. */
export function generateKeySecret(tag: string): string {
  return `sk-${tag}-${randomBytes(32).toString('base64url')}`;
}

/**
 * Keys are found by the SHA-256 of the whole key string. A lookup by hash compares no secret bytes in
 * application code, so there is no timing side channel to guard, and a leaked table reveals no usable key.
 */
export function hashKeySecret(key: string): string {
  // Once per request: the one-shot `hash` (Node 20.12 and later, hence `engines`) makes no Hash object, about a
  // third of the CPU of `createHash`; the same digest.
  return hash('sha256', key, 'hex');
}

/** Enough to recognise a key in a list; far too little to use it. */
export function displayPrefix(key: string): string {
  const tagEnd = key.indexOf('-', 3);
  return `${key.slice(0, tagEnd + 5)}…`;
}
