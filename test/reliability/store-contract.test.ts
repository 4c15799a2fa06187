import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKeySecret } from '../../shared/auth/key-secret.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import {
  type AdmissionRequest,
  pruneStaleBuckets,
  releaseLease,
  tryAdmit,
} from '../../shared/store/admission-store.ts';
import { createConnection, setConnectionEnabled } from '../../shared/store/connection-store.ts';
import { createKey, findSecret, revokeKey, rotateKey } from '../../shared/store/key-store.ts';
import { createMember, getMember, setHolderHoldings, setMemberStatus } from '../../shared/store/member-store.ts';
import { addToRollup } from '../../shared/store/rollup-store.ts';
import {
  closeRecord,
  putRunningRecord,
  type RecordOutcome,
  type RunningRecord,
} from '../../shared/store/usage-record-store.ts';
import { type RunningStore, storeEngines } from './support/store-engines.ts';

const tags = { keyTag: 'gw', holderTag: 'hold' };

/**
 * Every conditional write the gateway relies on, run against dynalite (the embedded store of `npm start`) and
 * against AWS's own DynamoDB Local engine, so that a condition dynalite happens to evaluate differently from
 * DynamoDB cannot hide. The same assertions, both engines green.
 */
const day = '2026-11-21';
const minute = '2026-11-21T10:00';
const unique = () => randomBytes(6).toString('hex');

describe.each(storeEngines)('store contract on $name', (engine) => {
  let store: RunningStore;
  let services: GatewayServices;

  beforeAll(async () => {
    store = await engine.start();
    services = store.services;
  }, 60_000);
  afterAll(async () => store?.close());

  async function memberWithKey(policy = {}) {
    const now = new Date();
    const member = await createMember(services.control, { name: 'm', role: 'member', policy }, now);
    const key = await createKey(
      services.control,
      { memberId: member.id, name: 'k', expiresAt: null, policy: {}, tag: 'gw' },
      now,
    );
    return { memberId: member.id, keyId: key.id, secret: key.key };
  }

  const admission = (ids: { memberId: string; keyId: string }, overrides: Partial<AdmissionRequest> = {}) =>
    ({
      memberId: ids.memberId,
      keyId: ids.keyId,
      generation: 1,
      requestId: `req_${unique()}`,
      day,
      minute,
      reserve: 10,
      leaseExpiresAt: Date.now() + 60_000,
      limits: {},
      ...overrides,
    }) satisfies AdmissionRequest;

  const member = async (id: string) => {
    const item = await getMember(services.control, id, true);
    if (!item) throw new Error(`member ${id} is missing`);
    return item;
  };

  describe('tryAdmit', () => {
    it('reserves up to the daily allowance exactly, and not one token more', async () => {
      const ids = await memberWithKey();
      const limits = { dailyTokens: 100 };
      const results = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        results.push(await tryAdmit(services.control, admission(ids, { reserve: 25, limits })));
      }
      expect(results).toEqual([true, true, true, true, false]);
      expect((await member(ids.memberId)).tokenDays[day]).toBe(100);
    });

    it('never reserves past the allowance when many admissions race', async () => {
      const ids = await memberWithKey();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          tryAdmit(services.control, admission(ids, { reserve: 10, limits: { dailyTokens: 75 } })),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(7);
      expect((await member(ids.memberId)).tokenDays[day]).toBe(70);
    });

    it('counts the minute for the member and for the key separately', async () => {
      const ids = await memberWithKey();
      const member2 = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        member2.push(await tryAdmit(services.control, admission(ids, { limits: { memberRpm: 2 } })));
      }
      expect(member2).toEqual([true, true, false]);
      const next = '2026-11-21T10:01';
      expect(await tryAdmit(services.control, admission(ids, { minute: next, limits: { keyRpm: 1 } }))).toBe(true);
      expect(await tryAdmit(services.control, admission(ids, { minute: next, limits: { keyRpm: 1 } }))).toBe(false);
      const item = await member(ids.memberId);
      expect(item.minutes[minute]).toBe(2);
      expect(item.keyMinutes[ids.keyId]?.[next]).toBe(1);
    });

    it('takes exactly the concurrency limit of leases when admissions race, for the member and the key', async () => {
      const ids = await memberWithKey();
      const memberRace = await Promise.all(
        Array.from({ length: 12 }, () =>
          tryAdmit(services.control, admission(ids, { limits: { memberConcurrency: 3 } })),
        ),
      );
      expect(memberRace.filter(Boolean)).toHaveLength(3);
      const other = await memberWithKey();
      const keyRace = await Promise.all(
        Array.from({ length: 12 }, () =>
          tryAdmit(services.control, admission(other, { limits: { keyConcurrency: 2 } })),
        ),
      );
      expect(keyRace.filter(Boolean)).toHaveLength(2);
      expect(Object.keys((await member(other.memberId)).keyLeases[other.keyId] ?? {})).toHaveLength(2);
    });

    it('counts a holder’s daily requests against the holder limit', async () => {
      const ids = await memberWithKey();
      const results = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        results.push(await tryAdmit(services.control, admission(ids, { limits: { holderDailyRequests: 2 } })));
      }
      expect(results).toEqual([true, true, false]);
      expect((await member(ids.memberId)).holderDays[day]).toBe(2);
    });

    it('refuses a revoked key, a rotated-away generation, and a member that is not active', async () => {
      const revoked = await memberWithKey();
      await revokeKey(services.control, revoked.keyId);
      expect(await tryAdmit(services.control, admission(revoked))).toBe(false);

      const rotated = await memberWithKey();
      await rotateKey(services.control, rotated.keyId, tags, new Date());
      expect(await tryAdmit(services.control, admission(rotated))).toBe(false);
      expect(await tryAdmit(services.control, admission(rotated, { generation: 2 }))).toBe(true);

      for (const status of ['disabled', 'suspended'] as const) {
        const inactive = await memberWithKey();
        await setMemberStatus(services.control, inactive.memberId, status);
        expect(await tryAdmit(services.control, admission(inactive))).toBe(false);
      }
    });

    it('refuses a key the member item does not know, and a member that does not exist', async () => {
      const ids = await memberWithKey();
      expect(await tryAdmit(services.control, admission({ ...ids, keyId: `key_${unique()}` }))).toBe(false);
      expect(await tryAdmit(services.control, admission({ ...ids, memberId: `mem_${unique()}` }))).toBe(false);
      // A refused admission leaves nothing behind.
      expect(Object.keys((await member(ids.memberId)).leases)).toEqual([]);
    });
  });

  describe('pruneStaleBuckets', () => {
    // Found by this suite: admission adds a `minutes` and a `keyMinutes` entry for every minute with a request,
    // and one admission write cannot remove the others, so without the reaper's prune the ONE member item every
    // admission rewrites would grow by about 40 bytes per active minute, to DynamoDB's 400 KB item limit.
    it('keeps the member item bounded: rate-window counters of past minutes do not pile up', async () => {
      const ids = await memberWithKey();
      const days = 100;
      for (let index = 0; index < days; index++) {
        const date = new Date(Date.UTC(2026, 0, 1 + index, 10, 0)).toISOString();
        const admitted = await tryAdmit(
          services.control,
          admission(ids, {
            day: date.slice(0, 10),
            minute: date.slice(0, 16),
            limits: { memberRpm: 1_000, keyRpm: 1_000 },
          }),
        );
        expect(admitted).toBe(true);
      }
      const grown = await member(ids.memberId);
      expect(Object.keys(grown.minutes)).toHaveLength(days);
      // The reaper's pass, a day after the last admission.
      await pruneStaleBuckets(services.control, grown, new Date(Date.UTC(2026, 0, 1 + days, 10, 0)));
      const item = await member(ids.memberId);
      expect(Object.keys(item.minutes).length).toBeLessThan(10);
      expect(Object.keys(item.keyMinutes[ids.keyId] ?? {}).length).toBeLessThan(10);
    });
  });

  describe('releaseLease', () => {
    it('settles once: the second release changes nothing, and the lease is gone from both maps', async () => {
      const ids = await memberWithKey();
      const request = admission(ids, { reserve: 50 });
      expect(await tryAdmit(services.control, request)).toBe(true);
      const release = { ...ids, requestId: request.requestId, day, chargeDelta: -20 };
      const [first, second] = await Promise.all([
        releaseLease(services.control, release),
        releaseLease(services.control, release),
      ]);
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect(await releaseLease(services.control, release)).toBe(false);
      const item = await member(ids.memberId);
      expect(item.tokenDays[day]).toBe(30);
      expect(item.leases).toEqual({});
      expect(item.keyLeases[ids.keyId]).toEqual({});
    });

    it('charges above the reservation when usage came in over the estimate', async () => {
      const ids = await memberWithKey();
      const request = admission(ids, { reserve: 10 });
      await tryAdmit(services.control, request);
      expect(await releaseLease(services.control, { ...ids, requestId: request.requestId, day, chargeDelta: 15 })).toBe(
        true,
      );
      expect((await member(ids.memberId)).tokenDays[day]).toBe(25);
    });
  });

  describe('keys', () => {
    it('creates a key that is found by the hash of its secret only, and refuses a member that does not exist', async () => {
      const ids = await memberWithKey();
      const lookup = await findSecret(services.control, ids.secret);
      expect(lookup).toMatchObject({ pk: `secret#${hashKeySecret(ids.secret)}`, keyId: ids.keyId, generation: 1 });
      expect(JSON.stringify(lookup)).not.toContain(ids.secret);
      expect((await member(ids.memberId)).keys[ids.keyId]).toEqual({ generation: 1, state: 'active' });

      const orphan = createKey(
        services.control,
        { memberId: `mem_${unique()}`, name: 'k', expiresAt: null, policy: {}, tag: 'gw' },
        new Date(),
      );
      await expect(orphan).rejects.toMatchObject({ code: 'member_not_found' });
    });

    it('refuses a second key with the same secret (the lookup is written only where none exists)', async () => {
      const ids = await memberWithKey();
      const again = createKey(
        services.control,
        { memberId: ids.memberId, name: 'copy', expiresAt: null, policy: {}, tag: 'gw', secret: ids.secret },
        new Date(),
      );
      await expect(again).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
      expect((await findSecret(services.control, ids.secret))?.keyId).toBe(ids.keyId);
    });

    it('rotates once when two rotations race, and never rotates a revoked key', async () => {
      const ids = await memberWithKey();
      const outcomes = await Promise.allSettled([
        rotateKey(services.control, ids.keyId, tags, new Date()),
        rotateKey(services.control, ids.keyId, tags, new Date()),
      ]);
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      expect(won).toHaveLength(1);
      expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({
        reason: { code: 'key_changed' },
      });
      expect((await member(ids.memberId)).keys[ids.keyId]?.generation).toBe(2);
      // The old secret's lookup stays, so its refusal can say "rotated".
      expect((await findSecret(services.control, ids.secret))?.generation).toBe(1);

      await revokeKey(services.control, ids.keyId);
      expect((await member(ids.memberId)).keys[ids.keyId]?.state).toBe('revoked');
      await expect(rotateKey(services.control, ids.keyId, tags, new Date())).rejects.toMatchObject({
        code: 'key_revoked',
      });
    });
  });

  describe('members and connections', () => {
    it('creates a member id once, and changes the status only of a member that exists', async () => {
      const id = `mem_${unique()}`;
      await createMember(services.control, { id, name: 'a', role: 'member', policy: {} }, new Date());
      await expect(
        createMember(services.control, { id, name: 'b', role: 'member', policy: {} }, new Date()),
      ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
      expect((await member(id)).name).toBe('a');
      await expect(setMemberStatus(services.control, `mem_${unique()}`, 'disabled')).rejects.toMatchObject({
        code: 'member_not_found',
      });
    });

    it('records holdings on a wallet’s own item, keeps its counters, and never takes over a team member', async () => {
      const wallet = `0x${unique()}`;
      const first = await setHolderHoldings(services.control, wallet, 120, new Date());
      expect(first).toMatchObject({ role: 'holder', holdings: { usd: 120 } });
      const key = await createKey(
        services.control,
        { memberId: first.id, name: 'holder key', expiresAt: null, policy: {}, tag: 'hold' },
        new Date(),
      );
      expect(await tryAdmit(services.control, admission({ memberId: first.id, keyId: key.id }, { reserve: 7 }))).toBe(
        true,
      );
      // A holdings refresh sets the admission maps only where they are missing: the counters survive it.
      const refreshed = await setHolderHoldings(services.control, wallet, 80, new Date());
      expect(refreshed.holdings?.usd).toBe(80);
      expect((await member(first.id)).tokenDays[day]).toBe(7);

      const teamMember = `wallet:0x${unique()}`;
      await createMember(services.control, { id: teamMember, name: 't', role: 'member', policy: {} }, new Date());
      await expect(
        setHolderHoldings(services.control, teamMember.slice('wallet:'.length), 1, new Date()),
      ).rejects.toMatchObject({ code: 'member_not_found' });
      expect((await member(teamMember)).role).toBe('member');
    });

    it('enables or disables only a connection that exists', async () => {
      const connection = await createConnection(
        services.control,
        {
          provider: 'openai',
          wire: 'openai-chat',
          baseUrl: 'http://127.0.0.1:9/v1',
          models: ['m'],
          upstream: 'lb',
          secretName: (id) => `connections/${id}`,
        },
        new Date(),
        async () => {},
      );
      expect((await setConnectionEnabled(services.control, connection.id, false)).enabled).toBe(false);
      await expect(setConnectionEnabled(services.control, `con_${unique()}`, true)).rejects.toMatchObject({
        code: 'connection_not_found',
      });
    });
  });

  describe('usage records and rollups', () => {
    const running = (overrides: Partial<RunningRecord> = {}): RunningRecord => ({
      id: `req_${unique()}`,
      memberId: 'mem_contract',
      keyId: 'key_contract',
      provider: 'openai',
      model: 'openai/m',
      connectionId: 'con_contract',
      upstream: 'lb',
      wire: 'openai-chat',
      stream: false,
      startedAt: `${day}T10:00:00.000Z`,
      day,
      reserved: 100,
      state: 'running',
      ...overrides,
    });
    const outcome = (charge: number): RecordOutcome => ({
      state: 'completed',
      status: 200,
      endedAt: `${day}T10:00:01.000Z`,
      durationMs: 1000,
      inputTokens: charge - 5,
      cachedInputTokens: null,
      outputTokens: 5,
      charge,
      source: 'measured',
    });
    const stored = async (id: string) =>
      (
        await services.usage.client.send(
          new GetCommand({ TableName: services.usage.tableName, Key: { id }, ConsistentRead: true }),
        )
      ).Item;

    it('closes a record once, even when two closings race', async () => {
      const record = running();
      await putRunningRecord(services.usage, record);
      const results = await Promise.all([
        closeRecord(services.usage, record, outcome(40)),
        closeRecord(services.usage, record, { ...outcome(99), state: 'failed' }),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await closeRecord(services.usage, record, outcome(1))).toBe(false);
      expect((await stored(record.id))?.state).not.toBe('running');
    });

    it('writes the whole record when the running one never arrived, and a late running write changes nothing', async () => {
      const record = running({ model: 'openai/late' });
      expect(await closeRecord(services.usage, record, outcome(30))).toBe(true);
      expect(await stored(record.id)).toMatchObject({
        state: 'completed',
        model: 'openai/late',
        charge: 30,
        reserved: 100,
      });
      await putRunningRecord(services.usage, { ...record, model: 'openai/overwritten' });
      expect(await stored(record.id)).toMatchObject({ state: 'completed', model: 'openai/late' });
    });

    it('adds every settlement into its hourly rollup, however many race', async () => {
      const memberId = `mem_${unique()}`;
      const records = Array.from({ length: 15 }, (_, index) => running({ memberId, id: `req_${unique()}_${index}` }));
      await Promise.all(
        records.map((record, index) =>
          addToRollup(services.rollups, record, index % 3 === 0 ? { ...outcome(10), inputTokens: null } : outcome(10)),
        ),
      );
      const rollup = (
        await services.rollups.client.send(
          new GetCommand({
            TableName: services.rollups.tableName,
            Key: { pk: `day#${day}`, sk: ['10', memberId, 'key_contract', 'lb', 'openai', 'openai/m'].join('#') },
            ConsistentRead: true,
          }),
        )
      ).Item;
      expect(rollup).toMatchObject({ requests: 15, charge: 150, outputTokens: 75, outputTokensReported: 15 });
      expect(rollup?.inputTokensReported).toBe(10);
      expect(rollup?.inputTokens).toBe(50);
    });
  });
});
