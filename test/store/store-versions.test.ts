import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey, rotateKey } from '../../shared/auth/key-issuance.ts';
import type { AdmissionRequest, AdmissionResult } from '../../shared/store/admission.ts';
import type { ConnectionItem } from '../../shared/store/control-items.ts';
import { StoreNotFoundError, VersionConflictError } from '../../shared/store/store-errors.ts';
import type { GatewayStore } from '../../shared/store/store-port.ts';
import { startTestStore, type TestStore, testEngineNames } from '../support/test-store.ts';

const admittedAt = Date.parse('2026-11-21T10:00:30.000Z');
const unique = () => randomBytes(6).toString('hex');
const tags = { keyTag: 'gw', holderTag: 'hold' };

/**
 * Versions and conditional updates, held to the same contract on every engine: each edited record starts at 1,
 * every change bumps it, an update at a stale version writes nothing and says what is stored now, and a change of
 * policy, limits or expiry reaches the very next admission even when the caller's principal was read before it.
 */
describe.each(testEngineNames)('versions and conditional updates on %s', (engineName) => {
  let engine: TestStore;
  let store: GatewayStore;

  beforeAll(async () => {
    engine = await startTestStore(engineName);
    store = engine.store;
  }, 60_000);
  afterAll(async () => engine?.close());

  async function memberWithKey() {
    const now = new Date(admittedAt);
    const member = await store.members.create({ name: 'm', role: 'member', policy: { dailyTokens: 100 } }, now);
    const key = await issueKey(store, { memberId: member.id, name: 'k', expiresAt: null, policy: {}, tag: 'gw' }, now);
    return { memberId: member.id, keyId: key.id };
  }

  const admission = (
    ids: { memberId: string; keyId: string },
    policyVersions: { member: number; key: number },
  ): AdmissionRequest => ({
    ...ids,
    generation: 1,
    requestId: `req_${unique()}`,
    day: '2026-11-21',
    minute: '2026-11-21T10:00',
    reserve: 1,
    now: admittedAt,
    leaseExpiresAt: admittedAt + 60_000,
    limits: {},
    policyVersions,
  });
  const refusal = (result: AdmissionResult) => (result.admitted ? undefined : result.refusal.reason);

  it('versions a member from 1, bumps it with every verb, and updates only at the version read', async () => {
    const member = await store.members.create({ name: 'a', role: 'member', policy: {} }, new Date(admittedAt));
    expect(member.version).toBe(1);
    expect((await store.members.setStatus(member.id, 'suspended')).version).toBe(2);
    const updated = await store.members.update(member.id, 2, { name: 'b', policy: { rpm: 5, dailyTokens: 9 } });
    expect(updated).toMatchObject({ name: 'b', role: 'member', status: 'suspended', policy: { rpm: 5 }, version: 3 });
    expect(await store.members.get(member.id, { consistent: true })).toEqual(updated);

    const stale = store.members.update(member.id, 2, { name: 'lost' });
    await expect(stale).rejects.toBeInstanceOf(VersionConflictError);
    await expect(stale).rejects.toMatchObject({ entity: 'member', current: { name: 'b', version: 3 } });
    expect((await store.members.get(member.id, { consistent: true }))?.name).toBe('b');
    await expect(store.members.update(`mem_${unique()}`, 1, { name: 'x' })).rejects.toBeInstanceOf(StoreNotFoundError);
  });

  it('lets exactly one of two updates at the same version through', async () => {
    const member = await store.members.create({ name: 'a', role: 'member', policy: {} }, new Date(admittedAt));
    const results = await Promise.allSettled(
      ['first', 'second', 'third'].map((name) => store.members.update(member.id, 1, { name })),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(VersionConflictError);
    }
    expect((await store.members.get(member.id, { consistent: true }))?.version).toBe(2);
  });

  it('versions a key, bumps it at revocation and rotation, and updates name, policy and expiry conditionally', async () => {
    const ids = await memberWithKey();
    const key = await store.keys.get(ids.keyId, { consistent: true });
    expect(key?.version).toBe(1);
    const updated = await store.keys.update(ids.keyId, 1, {
      name: 'renamed',
      policy: { rpm: 3 },
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    expect(updated).toMatchObject({ name: 'renamed', policy: { rpm: 3 }, expiresAt: '2030-01-01T00:00:00.000Z' });
    expect(updated.version).toBe(2);
    expect('generation' in updated).toBe(false);
    expect((await store.keys.update(ids.keyId, 2, { expiresAt: null })).expiresAt).toBeNull();
    const rotated = await rotateKey(store, ids.keyId, tags, new Date(admittedAt));
    expect(rotated.version).toBe(4);
    await expect(store.keys.update(ids.keyId, 3, { name: 'late' })).rejects.toMatchObject({
      entity: 'key',
      current: { name: 'renamed', version: 4 },
    });
    expect((await store.keys.revoke(ids.keyId)).version).toBe(5);
    await expect(store.keys.update(`key_${unique()}`, 1, { name: 'x' })).rejects.toMatchObject({ entity: 'key' });
  });

  it('versions a connection, bumps it when enabled or disabled, and updates it conditionally', async () => {
    const connection: ConnectionItem = {
      id: `con_${unique()}`,
      provider: 'openai',
      wire: 'openai-chat',
      baseUrl: 'http://127.0.0.1:9/v1',
      models: ['m'],
      modelLimits: [],
      upstream: 'lb',
      privateNetwork: false,
      enabled: true,
      createdAt: new Date(admittedAt).toISOString(),
      secretName: 'connections/old',
      version: 1,
    };
    await store.connections.create(connection);
    expect(await store.connections.get(connection.id)).toEqual(connection);
    expect((await store.connections.setEnabled(connection.id, false)).version).toBe(2);
    const updated = await store.connections.update(connection.id, 2, {
      models: ['m', 'n'],
      modelLimits: [{ id: 'n', contextWindow: 1000, maxOutput: 100 }],
      baseUrl: 'http://127.0.0.1:10/v1',
      enabled: true,
      secretName: 'connections/new',
    });
    expect(updated).toMatchObject({
      models: ['m', 'n'],
      baseUrl: 'http://127.0.0.1:10/v1',
      enabled: true,
      secretName: 'connections/new',
      version: 3,
    });
    const conflict = await store.connections.update(connection.id, 2, { enabled: false }).catch((error) => error);
    expect(conflict).toBeInstanceOf(VersionConflictError);
    expect(conflict.current).toMatchObject({ version: 3, enabled: true });
    expect('secretName' in conflict.current).toBe(false);
    expect(await store.connections.get(`con_${unique()}`)).toBeUndefined();
    await expect(store.connections.update(`con_${unique()}`, 1, { enabled: false })).rejects.toMatchObject({
      entity: 'connection',
    });
  });

  it('refuses the next admission made with a policy read before a member or key change, as policy_changed', async () => {
    const ids = await memberWithKey();
    expect((await store.admission.admit(admission(ids, { member: 1, key: 1 }))).admitted).toBe(true);

    await store.members.update(ids.memberId, 1, { policy: { dailyTokens: 5 } });
    expect(refusal(await store.admission.admit(admission(ids, { member: 1, key: 1 })))).toBe('policy_changed');
    expect((await store.admission.admit(admission(ids, { member: 2, key: 1 }))).admitted).toBe(true);

    await store.keys.update(ids.keyId, 1, { policy: { rpm: 1 } });
    expect(refusal(await store.admission.admit(admission(ids, { member: 2, key: 1 })))).toBe('policy_changed');
    expect((await store.admission.admit(admission(ids, { member: 2, key: 2 }))).admitted).toBe(true);

    await store.keys.update(ids.keyId, 2, { expiresAt: '2030-01-01T00:00:00.000Z' });
    expect(refusal(await store.admission.admit(admission(ids, { member: 2, key: 2 })))).toBe('policy_changed');
    // Revocation still goes first: the caller hears the reason that will not go away on a second read.
    await store.keys.revoke(ids.keyId);
    expect(refusal(await store.admission.admit(admission(ids, { member: 1, key: 1 })))).toBe('key_revoked');
  });
});
