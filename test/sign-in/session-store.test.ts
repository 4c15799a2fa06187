import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingSignIn, SessionRecord } from '../../shared/store/sign-in-items.ts';
import type { GatewayStore } from '../../shared/store/store-port.ts';
import { startTestStore, type TestStore } from '../support/test-store.ts';

const unique = () => randomBytes(8).toString('hex');
const now = new Date('2026-11-27T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms).toISOString();

function session(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    idHash: unique(),
    memberId: 'mem_x',
    role: 'member',
    subject: 'sub-1',
    email: 'a@example.com',
    client: 'console',
    createdAt: now.toISOString(),
    expiresAt: later(3_600_000),
    ...overrides,
  };
}

/** The sessions verbs of the store port, on both engines of `npm start` (SQLite and the embedded dynalite). */
describe.each(['sqlite', 'dynalite'] as const)('sessions on %s', (engineName) => {
  let engine: TestStore;
  let store: GatewayStore;
  beforeAll(async () => {
    engine = await startTestStore(engineName);
    store = engine.store;
  }, 60_000);
  afterAll(async () => engine?.close());

  it('finds a session until it expires, and not after it is removed', async () => {
    const one = session();
    await store.sessions.create(one);
    expect(await store.sessions.find(one.idHash, now)).toEqual(one);
    expect(await store.sessions.find(one.idHash, new Date(Date.parse(one.expiresAt)))).toBeUndefined();
    await store.sessions.remove(one.idHash);
    expect(await store.sessions.find(one.idHash, now)).toBeUndefined();
    expect(await store.sessions.find(unique(), now)).toBeUndefined();
  });

  it('gives a sign-in under way to exactly one of two concurrent callbacks, and never after it expired', async () => {
    const pending: PendingSignIn = {
      stateHash: unique(),
      codeVerifier: 'v',
      nonce: 'n',
      browserBindingHash: 'b',
      expiresAt: later(600_000),
    };
    await store.sessions.begin(pending);
    const taken = await Promise.all([
      store.sessions.take(pending.stateHash, now),
      store.sessions.take(pending.stateHash, now),
    ]);
    expect(taken.filter((one) => one !== undefined)).toEqual([pending]);
    const stale = { ...pending, stateHash: unique(), expiresAt: now.toISOString() };
    await store.sessions.begin(stale);
    expect(await store.sessions.take(stale.stateHash, now)).toBeUndefined();
  });

  it('takes a CLI grant once', async () => {
    const grant = {
      codeHash: unique(),
      codeChallenge: 'c',
      session: session(),
      sessionId: 's',
      expiresAt: later(60_000),
    };
    await store.sessions.grantCli(grant);
    expect(await store.sessions.takeCliGrant(grant.codeHash, now)).toEqual(grant);
    expect(await store.sessions.takeCliGrant(grant.codeHash, now)).toBeUndefined();
  });

  it('gives a device sign-in to one poller at a time, put back while pending, never after it expired', async () => {
    const pending = {
      handleHash: unique(),
      authorization: {
        device_code: 'device-code',
        user_code: 'ABCD-EFGH',
        verification_uri: 'https://provider.example/device',
        expires_in: 600,
        interval: 5,
      },
      expiresAt: later(600_000),
    };
    await store.sessions.beginDevice(pending);
    const [first, second] = await Promise.all([
      store.sessions.takeDevice(pending.handleHash, now),
      store.sessions.takeDevice(pending.handleHash, now),
    ]);
    expect([first, second].filter((taken) => taken !== undefined)).toEqual([pending]);
    await store.sessions.beginDevice(pending);
    expect(await store.sessions.takeDevice(pending.handleHash, now)).toEqual(pending);
    const stale = { ...pending, handleHash: unique(), expiresAt: later(-1) };
    await store.sessions.beginDevice(stale);
    expect(await store.sessions.takeDevice(stale.handleHash, now)).toBeUndefined();
  });

  it('links a person to the first member linked, and unlinks', async () => {
    const subject = `sub-${unique()}`;
    expect(await store.sessions.personMember(subject)).toBeUndefined();
    expect(await store.sessions.linkPerson(subject, 'mem_a')).toBe('mem_a');
    expect(await store.sessions.linkPerson(subject, 'mem_b')).toBe('mem_a');
    expect(await store.sessions.personMember(subject)).toBe('mem_a');
    await store.sessions.unlinkPerson(subject);
    expect(await store.sessions.personMember(subject)).toBeUndefined();
  });
});
