import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admit } from '../../shared/accounting/admit.ts';
import { reapAllExpiredLeases } from '../../shared/accounting/reap-all.ts';
import { authenticate } from '../../shared/auth/authenticate.ts';
import { putRunningRecord } from '../../shared/store/usage-record-store.ts';
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

const throttled = () =>
  Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });
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
 * Throttles the store writes that `matches` picks, and sends every other command to the real engine. Throttling
 * is the one store fault the real engine cannot be made to produce on demand.
 */
function throttleUpdates(client: DynamoDBDocumentClient, matches: (input: UpdateCommand['input']) => boolean) {
  const realSend = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  const mock = mockClient(client);
  mock.on(GetCommand).callsFake((input) => realSend(new GetCommand(input)));
  mock.on(PutCommand).callsFake((input) => realSend(new PutCommand(input)));
  mock.on(QueryCommand).callsFake((input) => realSend(new QueryCommand(input)));
  mock.on(ScanCommand).callsFake((input) => realSend(new ScanCommand(input)));
  mock.on(BatchGetCommand).callsFake((input) => realSend(new BatchGetCommand(input)));
  mock.on(UpdateCommand).callsFake((input: UpdateCommand['input']) => {
    if (matches(input)) return Promise.reject(throttled());
    return realSend(new UpdateCommand(input));
  });
  restore = () => mock.restore();
}

const isAdmission = (input: UpdateCommand['input']) => String(input.UpdateExpression).includes('#leases.#rid = :lease');
const isLeaseRelease = (input: UpdateCommand['input']) => String(input.UpdateExpression).startsWith('REMOVE #leases');

describe('accounting under store and process faults', () => {
  it('refuses with 503 store_unavailable when the store throttles admission: nothing reserved, nothing sent', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000 });
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    upstream.reset();
    throttleUpdates(gateway.host.services.client, isAdmission);
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
    throttleUpdates(gateway.host.services.client, isLeaseRelease);
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
    await putRunningRecord(services.usage, {
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
      code: 'concurrency_limit',
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
  it('retries the record and rollup writes, so a passing store fault loses nothing', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000 });
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    let failures = 2;
    // The record close fails twice, then the store recovers.
    throttleUpdates(gateway.host.services.client, (input) => {
      if (!String(input.UpdateExpression).includes('#state = :state') || failures === 0) return false;
      failures--;
      return true;
    });
    const { response } = await client.chat.completions
      .create({ model: 'acme/acme-1', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const record = await settledRecord(gateway.host.services, response.headers.get('x-request-id')!);
    restore?.();
    expect(failures).toBe(0);
    expect(record).toMatchObject({ state: 'completed', source: 'measured', charge: 26 });
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(member.leases).toEqual({});
  });
});
