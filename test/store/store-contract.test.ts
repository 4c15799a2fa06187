import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey, rotateKey } from '../../shared/auth/key-issuance.ts';
import { hashKeySecret } from '../../shared/auth/key-secret.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import { toGatewayError } from '../../shared/http/gateway-error.ts';
import type { AdmissionRequest, AdmissionResult } from '../../shared/store/admission.ts';
import type { MemberAccount, Policy } from '../../shared/store/control-items.ts';
import { StoreConflictError, StoreNotFoundError, StoreUnavailableError } from '../../shared/store/store-errors.ts';
import type { GatewayStore } from '../../shared/store/store-port.ts';
import type { ClosedRequest, RecordOutcome, RunningRecord } from '../../shared/store/usage-records.ts';
import { startTestStore, type TestStore, testEngineNames } from '../support/test-store.ts';

const tags = { keyTag: 'gw', holderTag: 'hold' };
const day = '2026-11-21';
const minute = '2026-11-21T10:00';
const admittedAt = Date.parse('2026-11-21T10:00:30.000Z');
const unique = () => randomBytes(6).toString('hex');

/**
 * Every verb of the store port, run against each engine: SQLite (the default of `npm start`), dynalite (the
 * embedded DynamoDB of `npm start` with GATEWAY_STORE=dynamodb) and AWS's own DynamoDB Local, so that a
 * condition dynalite happens to evaluate differently from DynamoDB cannot hide. The same assertions, all three
 * green. The lower-level verbs are called directly; the races go through the domain's own `admit` and `settle`.
 */
describe.each(testEngineNames)('store contract on %s', (engineName) => {
  let engine: TestStore;
  let store: GatewayStore;
  let services: GatewayServices;

  beforeAll(async () => {
    engine = await startTestStore(engineName);
    store = engine.store;
    services = engine.services;
  }, 60_000);
  afterAll(async () => engine?.close());

  async function memberWithKey(policy: Policy = {}, keyPolicy: Policy = {}) {
    const now = new Date(admittedAt);
    const member = await store.members.create({ name: 'm', role: 'member', policy }, now);
    const key = await issueKey(
      store,
      { memberId: member.id, name: 'k', expiresAt: null, policy: keyPolicy, tag: 'gw' },
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
      now: admittedAt,
      leaseExpiresAt: admittedAt + 60_000,
      limits: {},
      ...overrides,
    }) satisfies AdmissionRequest;

  const account = async (id: string): Promise<MemberAccount> => {
    const found = await store.admission.account(id);
    if (!found) throw new Error(`member ${id} is missing`);
    return found;
  };
  /** Where a record of this suite is: its own fields, or a request's id with the suite's default start. */
  const recordOf = (record: Pick<RunningRecord, 'id'> & Partial<RunningRecord>) =>
    store.records.get({
      id: record.id,
      memberId: record.memberId ?? 'mem_contract',
      startedAt: record.startedAt ?? `${day}T10:00:00.000Z`,
    });
  const admitted = (results: readonly AdmissionResult[]) => results.filter((result) => result.admitted).length;
  const refusal = (result: AdmissionResult) => (result.admitted ? undefined : result.refusal);

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
  const outcome = (charge: number, overrides: Partial<RecordOutcome> = {}): RecordOutcome => ({
    state: 'completed',
    status: 200,
    endedAt: `${day}T10:00:01.000Z`,
    durationMs: 1000,
    inputTokens: charge - 5,
    cachedInputTokens: null,
    outputTokens: 5,
    charge,
    source: 'measured',
    ...overrides,
  });

  describe('admission', () => {
    it('reserves up to the daily allowance exactly, and says how much was used when it refuses', async () => {
      const ids = await memberWithKey();
      const limits = { dailyTokens: 100 };
      const results = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        results.push(await store.admission.admit(admission(ids, { reserve: 25, limits })));
      }
      expect(results.map((result) => result.admitted)).toEqual([true, true, true, true, false]);
      expect(refusal(results[4] as AdmissionResult)).toEqual({
        reason: 'token_allowance',
        used: 100,
        needed: 25,
        limit: 100,
      });
      expect((await account(ids.memberId)).tokenDays[day]).toBe(100);
    });

    it('counts the minute for the member and for the key separately', async () => {
      const ids = await memberWithKey();
      const results = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        results.push(await store.admission.admit(admission(ids, { limits: { memberRpm: 2 } })));
      }
      expect(results.map((result) => result.admitted)).toEqual([true, true, false]);
      expect(refusal(results[2] as AdmissionResult)).toEqual({ reason: 'rate', scope: 'member', limit: 2 });
      const next = '2026-11-21T10:01';
      const keyLimited = { minute: next, limits: { keyRpm: 1 } };
      expect((await store.admission.admit(admission(ids, keyLimited))).admitted).toBe(true);
      expect(refusal(await store.admission.admit(admission(ids, keyLimited)))).toEqual({
        reason: 'rate',
        scope: 'key',
        limit: 1,
      });
      const item = await account(ids.memberId);
      expect(item.minutes[minute]).toBe(2);
      expect(item.keyMinutes[ids.keyId]?.[next]).toBe(1);
    });

    it('takes exactly the concurrency limit of leases when admissions race, for the member and the key', async () => {
      const ids = await memberWithKey();
      const memberRace = await Promise.all(
        Array.from({ length: 12 }, () => store.admission.admit(admission(ids, { limits: { memberConcurrency: 3 } }))),
      );
      expect(admitted(memberRace)).toBe(3);
      const other = await memberWithKey();
      const keyRace = await Promise.all(
        Array.from({ length: 12 }, () => store.admission.admit(admission(other, { limits: { keyConcurrency: 2 } }))),
      );
      expect(admitted(keyRace)).toBe(2);
      expect(keyRace.map(refusal).find(Boolean)).toEqual({ reason: 'concurrency', scope: 'key', limit: 2 });
      expect(Object.keys((await account(other.memberId)).keyLeases[other.keyId] ?? {})).toHaveLength(2);
    });

    it('counts a holder’s daily requests against the holder limit', async () => {
      const ids = await memberWithKey();
      const results = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        results.push(await store.admission.admit(admission(ids, { limits: { holderDailyRequests: 2 } })));
      }
      expect(results.map((result) => result.admitted)).toEqual([true, true, false]);
      expect(refusal(results[2] as AdmissionResult)).toEqual({ reason: 'holder_daily', limit: 2 });
      expect((await account(ids.memberId)).holderDays[day]).toBe(2);
    });

    it('refuses a revoked key, a rotated-away generation and an inactive member, each for its reason', async () => {
      const revoked = await memberWithKey();
      await store.keys.revoke(revoked.keyId);
      expect(refusal(await store.admission.admit(admission(revoked)))).toEqual({ reason: 'key_revoked' });

      const rotated = await memberWithKey();
      await rotateKey(store, rotated.keyId, tags, new Date(admittedAt));
      expect(refusal(await store.admission.admit(admission(rotated)))).toEqual({ reason: 'key_rotated' });
      expect((await store.admission.admit(admission(rotated, { generation: 2 }))).admitted).toBe(true);

      for (const status of ['disabled', 'suspended'] as const) {
        const inactive = await memberWithKey();
        await store.members.setStatus(inactive.memberId, status);
        expect(refusal(await store.admission.admit(admission(inactive)))).toEqual({ reason: `member_${status}` });
      }
    });

    it('refuses a key the member does not have and a member that does not exist, leaving nothing behind', async () => {
      const ids = await memberWithKey();
      const other = await memberWithKey();
      for (const stranger of [
        { ...ids, keyId: `key_${unique()}` },
        { ...ids, keyId: other.keyId },
      ]) {
        expect(refusal(await store.admission.admit(admission(stranger)))).toEqual({ reason: 'invalid_key' });
      }
      expect(refusal(await store.admission.admit(admission({ ...ids, memberId: `mem_${unique()}` })))).toEqual({
        reason: 'invalid_key',
      });
      const item = await account(ids.memberId);
      expect(item.leases).toEqual({});
      expect(item.tokenDays).toEqual({});
    });

    it('writes the running record it is handed with the admission, or says it left it to the caller', async () => {
      const ids = await memberWithKey();
      const request = admission(ids);
      const record = running({
        id: request.requestId,
        memberId: ids.memberId,
        keyId: ids.keyId,
        reserved: request.reserve,
      });
      const result = await store.admission.admit({ ...request, running: record });
      expect(result.admitted).toBe(true);
      const written = result.admitted && result.recordWritten === true;
      // SQLite admits in one local transaction, which takes the record too; DynamoDB's record is a call of its own.
      expect(written).toBe(engineName === 'sqlite');
      expect(await recordOf(record)).toEqual(written ? record : undefined);
      // Written or not, the caller's own write changes nothing that is there, and settlement closes it.
      await store.records.putRunning(record);
      expect(await store.admission.settle({ record, outcome: outcome(12) })).toEqual({ released: true, closed: true });
      expect(await recordOf(record)).toMatchObject({ state: 'completed', charge: 12 });

      // A refused admission writes no record, whatever it was handed.
      const refused = admission(ids, { reserve: 10, limits: { dailyTokens: 5 } });
      const refusedRecord = running({ id: refused.requestId, memberId: ids.memberId, keyId: ids.keyId });
      expect((await store.admission.admit({ ...refused, running: refusedRecord })).admitted).toBe(false);
      expect(await recordOf(refusedRecord)).toBeUndefined();
    });

    it('names the expired leases in the way of a refused admission', async () => {
      const ids = await memberWithKey();
      const dead = admission(ids, { leaseExpiresAt: admittedAt + 1_000, limits: { memberConcurrency: 1 } });
      expect((await store.admission.admit(dead)).admitted).toBe(true);
      const later = admission(ids, { now: admittedAt + 2_000, limits: { memberConcurrency: 1 } });
      const result = await store.admission.admit(later);
      expect(result).toMatchObject({
        admitted: false,
        refusal: { reason: 'concurrency', scope: 'member' },
        expiredLeases: [{ requestId: dead.requestId, memberId: ids.memberId, keyId: ids.keyId, reserved: 10, day }],
      });
    });
  });

  describe('admission through the domain, 500 at once', () => {
    // Every admission of a burst falls in one UTC minute and day.
    const burstNow = () => new Date('2026-03-02T10:15:30.000Z');
    let held: () => Date;
    beforeAll(() => {
      held = services.now;
      services.now = burstNow;
    });
    afterAll(() => {
      services.now = held;
    });

    async function principalOf(memberPolicy: Policy, keyPolicy: Policy = {}) {
      const ids = await memberWithKey(memberPolicy, keyPolicy);
      const { authenticate } = await import('../../shared/auth/authenticate.ts');
      return { ...ids, principal: await authenticate(services, { authorization: `Bearer ${ids.secret}` }) };
    }

    async function admitMany(principal: Awaited<ReturnType<typeof principalOf>>['principal'], count: number) {
      const { admit } = await import('../../shared/accounting/admit.ts');
      return Promise.all(
        Array.from({ length: count }, async (_, index) => {
          const requestId = `req_${principal.keyId}_${index}_${unique()}`;
          try {
            await admit(services, { principal, requestId, reserve: 10 });
            return { code: 'admitted', requestId };
          } catch (error) {
            return { code: toGatewayError(error).code, requestId: undefined };
          }
        }),
      );
    }

    const tally = (outcomes: readonly { code: string }[]) => {
      const counts: Record<string, number> = {};
      for (const { code } of outcomes) counts[code] = (counts[code] ?? 0) + 1;
      return counts;
    };

    async function settleAll(outcomes: readonly { requestId: string | undefined }[], memberId: string, keyId: string) {
      const { settle } = await import('../../shared/accounting/settle.ts');
      const now = services.now();
      await Promise.all(
        outcomes
          .filter((outcome) => outcome.requestId !== undefined)
          .map((outcome) =>
            settle(services, {
              record: running({
                id: outcome.requestId as string,
                memberId,
                keyId,
                startedAt: now.toISOString(),
                day: now.toISOString().slice(0, 10),
                reserved: 10,
              }),
              status: 200,
              completed: false,
              usage: undefined,
              endedAt: now,
            }),
          ),
      );
    }

    it('admits exactly K of 500 against the daily allowance and never stores more', async () => {
      const { principal, memberId, keyId } = await principalOf({ dailyTokens: 370 });
      const outcomes = await admitMany(principal, 500);
      expect(tally(outcomes)).toEqual({ admitted: 37, token_reservation_limit: 463 });
      expect((await account(memberId)).tokenDays['2026-03-02']).toBe(370);
      await settleAll(outcomes, memberId, keyId);
      const settled = await account(memberId);
      expect(settled.leases).toEqual({});
      expect(settled.keyLeases[keyId]).toEqual({});
      expect(settled.tokenDays['2026-03-02']).toBe(370);
    }, 120_000);

    it('admits exactly the requests-per-minute limit of 500', async () => {
      const { principal } = await principalOf({ rpm: 25 });
      expect(tally(await admitMany(principal, 500))).toEqual({ admitted: 25, rate_limit: 475 });
    }, 120_000);

    it('admits exactly the concurrency limit of 500, and frees every lease at settlement', async () => {
      const { principal, memberId, keyId } = await principalOf({ concurrency: 40 }, { concurrency: 30 });
      const outcomes = await admitMany(principal, 500);
      expect(tally(outcomes)).toEqual({ admitted: 30, concurrency_limit: 470 });
      await settleAll(outcomes, memberId, keyId);
      expect(tally(await admitMany(principal, 50))).toEqual({ admitted: 30, concurrency_limit: 20 });
    }, 120_000);

    it('admits nothing that started after a revocation returned, with 200 admissions racing it', async () => {
      const { principal, keyId } = await principalOf({});
      const { admit } = await import('../../shared/accounting/admit.ts');
      let revoked = false;
      const attempt = async (index: number) => {
        const startedAfterRevocation = revoked;
        try {
          await admit(services, { principal, requestId: `req_revoke_${index}_${unique()}`, reserve: 1 });
          return { startedAfterRevocation, admitted: true };
        } catch (error) {
          expect(toGatewayError(error)).toMatchObject({ status: 401, code: 'key_revoked' });
          return { startedAfterRevocation, admitted: false };
        }
      };
      // 150 admissions interleave with the revocation, one event-loop turn apart; 50 more start once it returned.
      const racing: Promise<{ startedAfterRevocation: boolean; admitted: boolean }>[] = [];
      const revocation = store.keys.revoke(keyId).then(() => {
        revoked = true;
      });
      for (let index = 0; index < 150; index++) {
        racing.push(attempt(index));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await revocation;
      for (let index = 150; index < 200; index++) racing.push(attempt(index));
      const results = await Promise.all(racing);
      expect(results.filter((result) => result.startedAfterRevocation && result.admitted)).toEqual([]);
      expect(results.filter((result) => result.startedAfterRevocation).length).toBeGreaterThanOrEqual(50);
    }, 120_000);
  });

  describe('settlement', () => {
    const settlementOf = (request: AdmissionRequest, memberId: string, keyId: string, charge: number) => ({
      record: running({ id: request.requestId, memberId, keyId, reserved: request.reserve }),
      outcome: outcome(charge),
    });

    it('settles once: of two racing settlements and a third, one releases the lease and closes the record', async () => {
      const ids = await memberWithKey();
      const request = admission(ids, { reserve: 50 });
      expect((await store.admission.admit(request)).admitted).toBe(true);
      const closed = settlementOf(request, ids.memberId, ids.keyId, 30);
      const results = await Promise.all([store.admission.settle(closed), store.admission.settle(closed)]);
      expect(results.filter((result) => result.released)).toHaveLength(1);
      expect(results.filter((result) => result.closed)).toHaveLength(1);
      expect(await store.admission.settle(closed)).toEqual({ released: false, closed: false });
      const item = await account(ids.memberId);
      expect(item.tokenDays[day]).toBe(30);
      expect(item.leases).toEqual({});
      expect(item.keyLeases[ids.keyId]).toEqual({});
      expect(await recordOf({ id: request.requestId, memberId: ids.memberId })).toMatchObject({
        state: 'completed',
        charge: 30,
        reserved: 50,
      });
    });

    it('charges above the reservation when usage came in over the estimate', async () => {
      const ids = await memberWithKey();
      const request = admission(ids, { reserve: 10 });
      await store.admission.admit(request);
      expect((await store.admission.settle(settlementOf(request, ids.memberId, ids.keyId, 25))).released).toBe(true);
      expect((await account(ids.memberId)).tokenDays[day]).toBe(25);
    });

    it('says what a member was charged on a day: its count less what requests in flight still hold', async () => {
      const ids = await memberWithKey();
      const first = admission(ids, { reserve: 50 });
      const inFlight = admission(ids, { reserve: 20 });
      expect((await store.admission.admit(first)).admitted).toBe(true);
      expect((await store.admission.admit(inFlight)).admitted).toBe(true);
      expect(await store.admission.chargedToday(ids.memberId, day)).toBe(0);
      await store.admission.settle(settlementOf(first, ids.memberId, ids.keyId, 30));
      expect(await store.admission.chargedToday(ids.memberId, day)).toBe(30);
      const today = await store.admission.today([ids.memberId], day, new Date(admittedAt));
      expect(today.get(ids.memberId)?.used).toBe(30);
      expect(await store.admission.chargedToday(ids.memberId, '2001-01-01')).toBe(0);
      expect(await store.admission.chargedToday(`mem_${unique()}`, day)).toBeUndefined();
    });

    it('closes the running record written at admission, and keeps what admission wrote', async () => {
      const ids = await memberWithKey();
      const request = admission(ids);
      await store.admission.admit(request);
      const record = running({
        id: request.requestId,
        memberId: ids.memberId,
        keyId: ids.keyId,
        model: 'openai/first',
      });
      await store.records.putRunning(record);
      expect(await recordOf(record)).toMatchObject({ state: 'running', model: 'openai/first' });
      const closed = { record: { ...record, model: 'openai/other' }, outcome: outcome(12, { state: 'failed' }) };
      expect(await store.admission.settle(closed)).toEqual({ released: true, closed: true });
      expect(await recordOf(record)).toMatchObject({ state: 'failed', model: 'openai/first', charge: 12 });
    });
  });

  describe('lease expiry and the reaper', () => {
    it('settles a request whose process died, once, charging its reservation; pruning leaves the rest', async () => {
      const ids = await memberWithKey();
      const now = admittedAt + 10 * 60_000;
      const request = admission(ids, { reserve: 500, leaseExpiresAt: now - 1 });
      await store.admission.admit(request);
      // As the pipeline writes it: the record starts at the admission's instant.
      const startedAt = new Date(admittedAt).toISOString();
      await store.records.putRunning(
        running({ id: request.requestId, memberId: ids.memberId, keyId: ids.keyId, reserved: 500, startedAt }),
      );
      const alive = admission(ids, { reserve: 5, leaseExpiresAt: now + 60_000 });
      await store.admission.admit(alive);

      const expired = await store.admission.expiredLeases(now);
      // An engine may keep the admission's instant with the lease, to find the record by it.
      expect(expired.filter((lease) => lease.memberId === ids.memberId)).toEqual([
        expect.objectContaining({
          memberId: ids.memberId,
          requestId: request.requestId,
          keyId: ids.keyId,
          expiresAt: now - 1,
          reserved: 500,
          day,
        }),
      ]);
      const { reapAllExpiredLeases } = await import('../../shared/accounting/reap-all.ts');
      const held = services.now;
      services.now = () => new Date(now);
      try {
        expect(await reapAllExpiredLeases(services)).toBeGreaterThanOrEqual(1);
        expect(await reapAllExpiredLeases(services)).toBe(0);
      } finally {
        services.now = held;
      }
      expect(await recordOf({ id: request.requestId, memberId: ids.memberId, startedAt })).toMatchObject({
        state: 'failed',
        status: 500,
        source: 'conservative',
        charge: 500,
      });
      const item = await account(ids.memberId);
      expect(Object.keys(item.leases)).toEqual([alive.requestId]);
      expect(item.tokenDays[day]).toBe(505);
    });

    it('keeps the admission state bounded: counters of past minutes and old days are pruned', async () => {
      const ids = await memberWithKey();
      const days = 100;
      for (let index = 0; index < days; index++) {
        const date = new Date(Date.UTC(2026, 0, 1 + index, 10, 0)).toISOString();
        const result = await store.admission.admit(
          admission(ids, {
            day: date.slice(0, 10),
            minute: date.slice(0, 16),
            limits: { memberRpm: 1_000, keyRpm: 1_000 },
          }),
        );
        expect(result.admitted).toBe(true);
      }
      expect(Object.keys((await account(ids.memberId)).minutes)).toHaveLength(days);
      expect(await store.admission.pruneStale(new Date(Date.UTC(2026, 0, 1 + days, 10, 0)))).toBeGreaterThan(0);
      const item = await account(ids.memberId);
      expect(Object.keys(item.minutes).length).toBeLessThan(10);
      expect(Object.keys(item.keyMinutes[ids.keyId] ?? {}).length).toBeLessThan(10);
    });
  });

  describe('keys', () => {
    it('finds a key by the hash of its secret only, and refuses a member that does not exist', async () => {
      const ids = await memberWithKey();
      const lookup = await store.keys.findBySecretHash(hashKeySecret(ids.secret));
      expect(lookup).toEqual({ keyId: ids.keyId, memberId: ids.memberId, generation: 1 });
      expect(JSON.stringify(await store.keys.list(ids.memberId))).not.toContain(ids.secret);
      expect((await account(ids.memberId)).keys[ids.keyId]).toMatchObject({ generation: 1, state: 'active' });
      const orphan = issueKey(
        store,
        { memberId: `mem_${unique()}`, name: 'k', expiresAt: null, policy: {}, tag: 'gw' },
        new Date(),
      );
      await expect(orphan).rejects.toBeInstanceOf(StoreNotFoundError);
    });

    it('refuses a second key with the same secret and writes nothing for it', async () => {
      const ids = await memberWithKey();
      const again = issueKey(
        store,
        { memberId: ids.memberId, name: 'copy', expiresAt: null, policy: {}, tag: 'gw', secret: ids.secret },
        new Date(),
      );
      await expect(again).rejects.toMatchObject({ reason: 'exists' });
      await expect(again).rejects.toBeInstanceOf(StoreConflictError);
      expect((await store.keys.findBySecretHash(hashKeySecret(ids.secret)))?.keyId).toBe(ids.keyId);
      expect((await store.keys.list(ids.memberId)).map((key) => key.id)).toEqual([ids.keyId]);
      expect(Object.keys((await account(ids.memberId)).keys)).toEqual([ids.keyId]);
    });

    it('rotates once when two rotations race, keeps the old lookup, and never rotates a revoked key', async () => {
      const ids = await memberWithKey();
      const outcomes = await Promise.allSettled([
        rotateKey(store, ids.keyId, tags, new Date(admittedAt)),
        rotateKey(store, ids.keyId, tags, new Date(admittedAt)),
      ]);
      expect(outcomes.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.find((result) => result.status === 'rejected')).toMatchObject({
        reason: { reason: 'key_changed' },
      });
      expect((await store.keys.get(ids.keyId))?.generation).toBe(2);
      expect((await account(ids.memberId)).keys[ids.keyId]?.generation).toBe(2);
      expect((await store.keys.findBySecretHash(hashKeySecret(ids.secret)))?.generation).toBe(1);

      await store.keys.revoke(ids.keyId);
      expect((await account(ids.memberId)).keys[ids.keyId]?.state).toBe('revoked');
      await expect(rotateKey(store, ids.keyId, tags, new Date(admittedAt))).rejects.toMatchObject({
        reason: 'key_revoked',
      });
      await expect(store.keys.revoke(`key_${unique()}`)).rejects.toMatchObject({ entity: 'key' });
    });
  });

  describe('members, holders and connections', () => {
    it('creates a member id once, and changes the status only of a member that exists', async () => {
      const id = `mem_${unique()}`;
      await store.members.create({ id, name: 'a', role: 'member', policy: { rpm: 3 } }, new Date(admittedAt));
      await expect(
        store.members.create({ id, name: 'b', role: 'member', policy: {} }, new Date()),
      ).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store.members.get(id)).toMatchObject({ id, name: 'a', status: 'active', policy: { rpm: 3 } });
      expect((await store.members.list()).some((member) => member.id === id)).toBe(true);
      expect((await store.members.setStatus(id, 'disabled')).status).toBe('disabled');
      await expect(store.members.setStatus(`mem_${unique()}`, 'disabled')).rejects.toMatchObject({ entity: 'member' });
    });

    it('records holdings on a wallet’s own member, keeps its counters, and never takes over a team member', async () => {
      const wallet = `0x${unique()}`;
      const first = await store.members.setHoldings(wallet, 120, new Date(admittedAt));
      expect(first).toMatchObject({ role: 'holder', holdings: { usd: 120 } });
      const key = await issueKey(
        store,
        { memberId: first.id, name: 'holder key', expiresAt: null, policy: {}, tag: 'hold' },
        new Date(),
      );
      expect(
        (await store.admission.admit(admission({ memberId: first.id, keyId: key.id }, { reserve: 7 }))).admitted,
      ).toBe(true);
      const refreshed = await store.members.setHoldings(wallet, 80, new Date(admittedAt + 1));
      expect(refreshed.holdings?.usd).toBe(80);
      expect((await account(first.id)).tokenDays[day]).toBe(7);

      const teamMember = `wallet:0x${unique()}`;
      await store.members.create({ id: teamMember, name: 't', role: 'member', policy: {} }, new Date());
      await expect(store.members.setHoldings(teamMember.slice('wallet:'.length), 1, new Date())).rejects.toMatchObject({
        entity: 'member',
      });
      expect((await store.members.get(teamMember))?.role).toBe('member');
    });

    it('records the first administrator once, whoever races', async () => {
      const recorded = await store.members.firstAdministrator();
      const [first, second] = await Promise.all([
        store.members.recordFirstAdministrator(`mem_${unique()}`),
        store.members.recordFirstAdministrator(`mem_${unique()}`),
      ]);
      expect(first).toBe(second);
      if (recorded !== undefined) expect(first).toBe(recorded);
      expect(await store.members.firstAdministrator()).toBe(first);
    });

    it('creates a connection once and enables or disables only one that exists', async () => {
      const connection = {
        id: `con_${unique()}`,
        provider: 'openai',
        wire: 'openai-chat' as const,
        baseUrl: 'http://127.0.0.1:9/v1',
        models: ['m', 'acme/n', 'plain'],
        // Declared limits come back as stored: a model with both and its input modalities, one with only a
        // largest output.
        modelLimits: [
          { id: 'm', contextWindow: 200_000, maxOutput: 8_192, inputModalities: ['text' as const, 'image' as const] },
          { id: 'acme/n', contextWindow: null, maxOutput: 4_096 },
        ],
        upstream: 'lb',
        privateNetwork: true,
        enabled: true,
        createdAt: new Date(admittedAt).toISOString(),
        secretName: 'connections/x',
        version: 1,
      };
      await store.connections.create(connection);
      await expect(store.connections.create(connection)).rejects.toBeInstanceOf(StoreConflictError);
      expect((await store.connections.list()).find((found) => found.id === connection.id)).toEqual(connection);
      const disabled = await store.connections.setEnabled(connection.id, false);
      expect(disabled).toMatchObject({ enabled: false, modelLimits: connection.modelLimits });
      await expect(store.connections.setEnabled(`con_${unique()}`, true)).rejects.toMatchObject({
        entity: 'connection',
      });
    });
  });

  describe('usage records and rollups', () => {
    it('closes a record once, even when two closings race', async () => {
      const record = running();
      await store.records.putRunning(record);
      const results = await Promise.all([
        store.records.close({ record, outcome: outcome(40) }),
        store.records.close({ record, outcome: outcome(99, { state: 'failed' }) }),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.records.close({ record, outcome: outcome(1) })).toBe(false);
      expect((await recordOf(record))?.state).not.toBe('running');
    });

    it('writes the whole record when the running one never arrived, and a late running write changes nothing', async () => {
      const record = running({ model: 'openai/late' });
      expect(await store.records.close({ record, outcome: outcome(30, { cachedInputTokens: 4 }) })).toBe(true);
      const expected = { state: 'completed', model: 'openai/late', charge: 30, reserved: 100, cachedInputTokens: 4 };
      expect(await recordOf(record)).toMatchObject({ ...expected, inputTokens: 25, outputTokens: 5 });
      await store.records.putRunning({ ...record, model: 'openai/overwritten' });
      expect(await recordOf(record)).toMatchObject(expected);
    });

    it('adds every closed request into its hourly rollup, however many race, and reads hours and days', async () => {
      const memberId = `mem_${unique()}`;
      const closed: ClosedRequest[] = Array.from({ length: 15 }, (_, index) => ({
        record: running({ memberId, id: `req_${unique()}_${index}` }),
        outcome: index % 3 === 0 ? outcome(10, { inputTokens: null }) : outcome(10),
      }));
      closed.push({
        record: running({ memberId, startedAt: `${day}T13:59:59.999Z` }),
        outcome: outcome(4, { state: 'failed' }),
      });
      await Promise.all([
        ...closed.slice(0, 10).map((one) => store.rollups.add([one])),
        store.rollups.add(closed.slice(10)),
      ]);
      const hours = await store.rollups.read({ by: 'hour', first: `${day}T10`, last: `${day}T13`, memberId });
      expect(hours).toHaveLength(2);
      expect(hours.find((row) => row.hour === `${day}T10`)).toEqual({
        hour: `${day}T10`,
        memberId,
        keyId: 'key_contract',
        upstream: 'lb',
        provider: 'openai',
        model: 'openai/m',
        requests: 15,
        failed: 0,
        charge: 150,
        inputTokens: 50,
        inputTokensReported: 10,
        cachedInputTokens: 0,
        cachedInputTokensReported: 0,
        outputTokens: 75,
        outputTokensReported: 15,
      });
      expect(await store.rollups.read({ by: 'hour', first: `${day}T11`, last: `${day}T12`, memberId })).toEqual([]);
      expect(
        await store.rollups.read({ by: 'hour', first: `${day}T10`, last: `${day}T23`, memberId, keyId: 'key_other' }),
      ).toEqual([]);
      const days = await store.rollups.read({ by: 'day', first: '2026-11-20', last: '2026-11-22', memberId });
      expect(days).toHaveLength(1);
      expect(days[0]).toMatchObject({
        hour: `${day}T00`,
        requests: 16,
        failed: 1,
        charge: 154,
        outputTokensReported: 16,
      });
    });

    it('rebuilds whole days of rollups from their closed records, replacing what they held', async () => {
      const memberId = `mem_${unique()}`;
      const rebuiltDay = '2026-10-05';
      const closed = [0, 1, 2].map((index) => ({
        record: running({ memberId, startedAt: `${rebuiltDay}T0${index}:30:00.000Z`, day: rebuiltDay }),
        outcome: outcome(10 + index),
      }));
      for (const one of closed) await store.records.close(one);
      await store.records.putRunning(running({ memberId, startedAt: `${rebuiltDay}T03:00:00.000Z`, day: rebuiltDay }));
      // Wrong before: the first request twice, the others missing, and a key that has no records at all.
      const [first] = closed as [ClosedRequest];
      await store.rollups.add([first, first, { ...first, record: { ...first.record, keyId: 'key_stale' } }]);
      expect(await store.rollups.rebuild({ first: rebuiltDay, last: rebuiltDay })).toMatchObject({ days: 1, rows: 3 });
      const hours = await store.rollups.read({
        by: 'hour',
        first: `${rebuiltDay}T00`,
        last: `${rebuiltDay}T23`,
        memberId,
      });
      expect(hours.map((row) => [row.hour, row.keyId, row.requests, row.charge]).sort()).toEqual([
        [`${rebuiltDay}T00`, 'key_contract', 1, 10],
        [`${rebuiltDay}T01`, 'key_contract', 1, 11],
        [`${rebuiltDay}T02`, 'key_contract', 1, 12],
      ]);
      const days = await store.rollups.read({ by: 'day', first: rebuiltDay, last: rebuiltDay, memberId });
      expect(days).toMatchObject([{ hour: `${rebuiltDay}T00`, keyId: 'key_contract', requests: 3, charge: 33 }]);
    });

    it('reads records newest first within a time range, with limits and filters', async () => {
      const memberId = `mem_${unique()}`;
      const at = (second: number) => `2026-11-22T08:00:${String(second).padStart(2, '0')}.000Z`;
      const records = Array.from({ length: 6 }, (_, index) =>
        running({
          memberId,
          day: '2026-11-22',
          startedAt: at(index),
          keyId: index % 2 ? 'key_odd' : 'key_even',
          provider: index < 3 ? 'alpha' : 'beta',
        }),
      );
      for (const [index, record] of records.entries()) {
        if (index === 5) await store.records.putRunning(record);
        else await store.records.close({ record, outcome: outcome(10) });
      }
      const range = { from: at(0), to: at(59) };
      const all = await store.records.newest({ ...range, memberId });
      expect(all.records.map((record) => record.startedAt)).toEqual([5, 4, 3, 2, 1, 0].map(at));
      expect(all.more).toBe(false);
      const limited = await store.records.newest({ ...range, memberId, limit: 2 });
      expect(limited).toMatchObject({ more: true, records: [{ startedAt: at(5) }, { startedAt: at(4) }] });
      const odd = await store.records.newest({ ...range, memberId, keyId: 'key_odd' });
      expect(odd.records.map((record) => record.startedAt)).toEqual([5, 3, 1].map(at));
      const beta = await store.records.newest({ ...range, providers: ['beta', 'gamma'], memberId });
      expect(beta.records.map((record) => record.startedAt)).toEqual([5, 4, 3].map(at));
      const team = await store.records.newest({ from: at(1), to: at(4), providers: ['alpha'] });
      expect(team.records.filter((record) => record.memberId === memberId).map((record) => record.startedAt)).toEqual(
        [2, 1].map(at),
      );
      expect(
        (await store.records.newest({ ...range, memberId, state: 'running' })).records.map((record) => record.id),
      ).toEqual([records[5]?.id]);
      expect((await store.records.newest({ ...range, memberId, state: 'closed' })).records).toHaveLength(5);
    });
  });

  describe('0.1 usage records', () => {
    const legacy = (index: number, overrides = {}) => ({
      id: `leg_${unique()}_${index}`,
      generation: '0.1' as const,
      timestamp: `2025-06-01T09:${String(index).padStart(2, '0')}:00.000Z`,
      day: '2025-06-01',
      requestId: null,
      keyId: 'key_legacy',
      memberId: null,
      provider: 'alpha',
      model: 'alpha-large',
      status: index % 2 ? 'ok' : 200,
      inputTokens: index,
      cachedInputTokens: null,
      outputTokens: null,
      durationMs: null,
      raw: '{"engine":"0.1.7"}',
      ...overrides,
    });

    it('imports each record once, keeps unknown counts unknown, and never touches gateway records or rollups', async () => {
      const records = [legacy(1), legacy(2), legacy(3)];
      const before = await store.records.newest({ from: '2025-06-01', to: '2025-06-02' });
      const first = await store.legacyUsage.importRecords(
        [...records, records[0] as (typeof records)[0]],
        new Date('2026-01-01T00:00:00Z'),
      );
      expect(first).toEqual({ imported: 3, skipped: 1 });
      const second = await store.legacyUsage.importRecords(records, new Date('2026-02-01T00:00:00Z'));
      expect(second).toEqual({ imported: 0, skipped: 3 });
      const stored = (await store.legacyUsage.list()).filter((record) => records.some((one) => one.id === record.id));
      expect(stored).toEqual(records.map((record) => ({ ...record, importedAt: '2026-01-01T00:00:00.000Z' })));
      expect(await store.records.newest({ from: '2025-06-01', to: '2025-06-02' })).toEqual(before);
      expect(await store.rollups.read({ by: 'day', first: '2025-06-01', last: '2025-06-01' })).toEqual([]);
    });

    it('counts a record repeated within one call once, whichever write wins', async () => {
      const record = legacy(9);
      const result = await store.legacyUsage.importRecords(
        Array.from({ length: 20 }, () => record),
        new Date(),
      );
      expect(result).toEqual({ imported: 1, skipped: 19 });
    });
  });

  describe('an unavailable store', () => {
    it('refuses admission with a StoreUnavailableError (503 store_unavailable) and reserves nothing', async () => {
      const ids = await memberWithKey({ dailyTokens: 1_000 });
      const request = admission(ids, { limits: { dailyTokens: 1_000 } });
      const restore = engine.makeUnavailable();
      let failure: unknown;
      try {
        failure = await store.admission.admit(request).then(
          () => undefined,
          (error: unknown) => error,
        );
      } finally {
        restore();
      }
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect(toGatewayError(failure)).toMatchObject({
        status: 503,
        code: 'store_unavailable',
        headers: { 'retry-after': '1' },
      });
      const item = await account(ids.memberId);
      expect(item.leases).toEqual({});
      expect(item.tokenDays).toEqual({});
      expect((await store.admission.admit(request)).admitted).toBe(true);
    });

    it('leaves a settlement it refused to the reaper: the lease stays until then, and nothing is half-written', async () => {
      const ids = await memberWithKey();
      const request = admission(ids, { reserve: 40 });
      await store.admission.admit(request);
      const closed = {
        record: running({ id: request.requestId, memberId: ids.memberId, keyId: ids.keyId, reserved: 40 }),
        outcome: outcome(15),
      };
      const restore = engine.makeUnavailable();
      try {
        await expect(store.admission.settle(closed)).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        restore();
      }
      const stuck = await account(ids.memberId);
      expect(Object.keys(stuck.leases)).toEqual([request.requestId]);
      expect(stuck.tokenDays[day]).toBe(40);
      expect(await store.admission.settle(closed)).toEqual({ released: true, closed: true });
      expect((await account(ids.memberId)).tokenDays[day]).toBe(15);
    });
  });
});
