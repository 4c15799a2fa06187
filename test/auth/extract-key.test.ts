import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { extractKey } from '../../shared/auth/authenticate.ts';
import { displayPrefix, generateKeySecret, hashKeySecret } from '../../shared/auth/key-secret.ts';

describe('reading the key (spec §5 rule 1)', () => {
  it('takes it from any of the three headers', () => {
    expect(extractKey({ authorization: 'Bearer sk-gw-abc' })).toBe('sk-gw-abc');
    expect(extractKey({ 'x-api-key': 'sk-gw-abc' })).toBe('sk-gw-abc');
    expect(extractKey({ 'x-goog-api-key': 'sk-gw-abc' })).toBe('sk-gw-abc');
    expect(extractKey({})).toBeUndefined();
  });

  it('accepts the same key twice but refuses two different ones', () => {
    expect(extractKey({ authorization: 'Bearer sk-gw-abc', 'x-api-key': 'sk-gw-abc' })).toBe('sk-gw-abc');
    expect(() => extractKey({ authorization: 'Bearer sk-gw-abc', 'x-api-key': 'sk-gw-def' })).toThrow(/different keys/);
  });
});

describe('key secrets', () => {
  it('are sk-<tag>- plus 256 random bits, found by SHA-256 and displayed only by a short prefix', () => {
    const key = generateKeySecret('gw');
    expect(key).toMatch(/^sk-gw-[A-Za-z0-9_-]{43}$/);
    expect(generateKeySecret('gw')).not.toBe(key);
    expect(hashKeySecret(key)).toMatch(/^[0-9a-f]{64}$/);
    // The SHA-256 of the key's UTF-8 text, as every stored key was looked up by (FIPS 180-2's "abc" vector).
    expect(hashKeySecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashKeySecret('sk-gw-ünï')).toBe(createHash('sha256').update('sk-gw-ünï', 'utf8').digest('hex'));
    expect(displayPrefix(key)).toBe(`${key.slice(0, 10)}…`);
  });
});
