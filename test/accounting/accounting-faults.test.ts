import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { admit } from '../../shared/accounting/admit.ts';
import { reapAllExpiredLeases } from '../../shared/accounting/reap-all.ts';
import { authenticate } from '../../shared/auth/authenticate.ts';
import { logger } from '../../shared/observability/logger.ts';
import { StoreUnavailableError } from '../../shared/store/store-errors.ts';
import type { GatewayStore } from '../../shared/store/store-port.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  await gateway.admin.createConnection({
    provider: 'acme',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/v1`,
    models: ['acme-1'],
  });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

let restore: (() => void) | undefined;
// The calendar clock this run holds (real, or pinned: test/support/pinned-clock.ts), restored after each test.
let runClock: () => Date;
beforeEach(() => {
  runClock = gateway.host.services.now;
});
afterEach(() => {
  restore?.();
  restore = undefined;
  gateway.host.services.now = runClock;
});

/** Moves the gateway's calendar clock past the lease time to live, from wherever this run holds it. */
function pastLeaseExpiry(services: typeof gateway.host.services): void {
  const leaseExpired = services.now().getTime() + services.config.leaseTtlMs + 1_000;
  services.now = () => new Date(leaseExpired);
}

/**
 * Makes one verb of the store fail as an unavailable store does (DynamoDB throttling, a locked SQLite database)
 * `times` times, on whichever engine this run uses; the contract suite proves each engine raises exactly this.
 */
function failVerb<Part extends 'admission' | 'rollups'>(
  store: GatewayStore,
  part: Part,
  verb: keyof GatewayStore[Part],
  times = Number.POSITIVE_INFINITY,
): { failures: () => number } {
  const verbs = store[part] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = verbs[verb as string] as (...args: unknown[]) => Promise<unknown>;
  let failed = 0;
  verbs[verb as string] = async (...args: unknown[]) => {
    if (failed >= times) return original(...args);
    failed++;
    throw new StoreUnavailableError('the store is throttling (injected)');
  };
  restore = () => {
    verbs[verb as string] = original;
  };
  return { failures: () => failed };
}

describe('accounting under store and process faults', () => {
  it('refuses with 503 store_unavailable when the store throttles admission: nothing reserved, nothing sent', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000 });
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    upstream.reset();
    failVerb(gateway.host.services.store, 'admission', 'admit');
    const error = await client.chat.completions
      .create({ model: 'acme/acme-1', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 503, code: 'store_unavailable' });
    restore?.();
    expect(upstream.requests).toHaveLength(0);
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(member.leases).toEqual({});
    expect(member.tokenDays).toEqual({});
    expect((await allRecords(gateway.host.services)).filter((record) => record.memberId === memberId)).toEqual([]);
  });

  it('leaves a throttled settlement to the reaper: one closed record, the lease released, the reservation charged', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000 });
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    failVerb(gateway.host.services.store, 'admission', 'settle');
    const { response } = await client.chat.completions
      .create({ model: 'acme/acme-1', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const requestId = response.headers.get('x-request-id')!;
    const stuck = await memberAfterSettlement(gateway.host.services, memberId);
    expect(Object.keys(stuck.leases)).toEqual([requestId]);
    restore?.();

    const services = gateway.host.services;
    pastLeaseExpiry(services);
    expect(await reapAllExpiredLeases(services)).toBe(1);
    expect(await reapAllExpiredLeases(services)).toBe(0);
    const record = await settledRecord(services, requestId);
    expect(record).toMatchObject({ state: 'failed', source: 'conservative' });
    expect(record.charge).toBe(record.reserved);
    const member = await memberAfterSettlement(services, memberId);
    expect(member.leases).toEqual({});
    expect(Object.values(member.tokenDays)).toEqual([record.reserved]);
  });

  it('settles a request whose process died between admission and settlement, exactly once', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000, concurrency: 1 });
    const services = gateway.host.services;
    const principal = await authenticate(services, { authorization: `Bearer ${key}` });
    const admission = await admit(services, { principal, requestId: 'req_died_1', reserve: 500 });
    await services.store.records.putRunning({
      id: 'req_died_1',
      memberId,
      keyId: principal.keyId,
      provider: 'acme',
      model: 'acme/acme-1',
      connectionId: 'con_1',
      upstream: 'lb',
      wire: 'openai-chat',
      stream: true,
      startedAt: admission.admittedAt.toISOString(),
      day: admission.day,
      reserved: 500,
      state: 'running',
    });
    // The dead request's lease holds the only concurrency slot until it expires.
    await expect(admit(services, { principal, requestId: 'req_died_2', reserve: 1 })).rejects.toMatchObject({
      refusal: { reason: 'concurrency', scope: 'member', limit: 1 },
    });
    pastLeaseExpiry(services);
    // Admission itself reaps the expired lease when it stands in the way.
    await admit(services, { principal, requestId: 'req_died_3', reserve: 1 });
    const record = await settledRecord(services, 'req_died_1');
    expect(record).toMatchObject({
      state: 'failed',
      status: 500,
      source: 'conservative',
      charge: 500,
      model: 'acme/acme-1',
    });
    expect(await reapAllExpiredLeases(services)).toBe(0);
    const member = await memberAfterSettlement(services, memberId);
    expect(Object.keys(member.leases)).toEqual(['req_died_3']);
  });
});

describe('settlement past its once-only gate', () => {
  it('keeps a request in the rollup folder while the rollup write fails, so a passing store fault loses nothing', async () => {
    const { memberId, keyId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000 });
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    const services = gateway.host.services;
    // The rollup write fails twice, then the store recovers. Each failure is reported, on the folder's timer or an
    // explicit flush (captured here, not printed: a test prints no "rollup flush failed").
    const reported: string[] = [];
    const spy = vi.spyOn(logger, 'error').mockImplementation((...args) => void reported.push(String(args[0])));
    const fault = failVerb(services.store, 'rollups', 'add', 2);
    const { response } = await client.chat.completions
      .create({ model: 'acme/acme-1', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const record = await settledRecord(services, response.headers.get('x-request-id')!);
    await Promise.allSettled([...services.background]);
    // Explicit flushes, as the folder's timer would make them: two fail and keep the request, the third adds it.
    try {
      for (let flush = 0; flush < 3; flush++) await services.rollupFolder.flush();
    } finally {
      spy.mockRestore();
    }
    restore?.();
    expect(fault.failures()).toBe(2);
    expect(reported.filter((message) => message.startsWith('rollup flush failed'))).toHaveLength(2);
    expect(record).toMatchObject({ state: 'completed', source: 'measured', charge: 26 });
    const member = await memberAfterSettlement(services, memberId);
    expect(member.leases).toEqual({});
    const hour = record.startedAt.slice(0, 13);
    const rollups = await services.store.rollups.read({ by: 'hour', first: hour, last: hour, keyId });
    expect(rollups).toMatchObject([{ requests: 1, charge: 26 }]);
  });
});
