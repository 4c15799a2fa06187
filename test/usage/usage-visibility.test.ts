import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { parseCsv } from './parse-csv.ts';
import { seedRequests, timesBackFrom } from './seed-usage.ts';
import { UsageClient } from './usage-client.ts';

let gateway: TestGateway;
let alice: { memberId: string; keyId: string; key: string; secondKeyId: string };
let bob: { memberId: string; keyId: string; key: string };
let adminUsage: UsageClient;
let aliceUsage: UsageClient;

beforeAll(async () => {
  gateway = await startTestGateway();
  const services = gateway.host.services;
  const aliceKey = await gateway.admin.createMemberWithKey();
  const aliceSecond = await gateway.admin.createKey(aliceKey.memberId);
  alice = { ...aliceKey, secondKeyId: aliceSecond.id };
  bob = await gateway.admin.createMemberWithKey();
  adminUsage = new UsageClient(gateway.url, gateway.adminKey);
  aliceUsage = new UsageClient(gateway.url, alice.key);

  const newest = new Date(Date.now() - 60_000).toISOString();
  const [aliceTimes, bobTimes] = [timesBackFrom(newest, 6, 7_000), timesBackFrom(newest, 4, 5_000)];
  await seedRequests(services, [
    ...aliceTimes.map((startedAt, index) => ({
      memberId: alice.memberId,
      keyId: index % 2 === 0 ? alice.keyId : alice.secondKeyId,
      startedAt,
    })),
    ...bobTimes.map((startedAt) => ({ memberId: bob.memberId, keyId: bob.keyId, startedAt, provider: 'beta' })),
  ]);
});

afterAll(async () => {
  await gateway?.close();
});

describe('usage visibility (spec §4.6 rule 4)', () => {
  it('shows a member only their own traffic', async () => {
    const summary = await aliceUsage.summary();
    expect(summary.totals.requests).toBe(6);
    expect(summary.providers).toEqual(['alpha']);
    const requests = await aliceUsage.requests();
    expect(requests.rows).toHaveLength(6);
    expect(new Set(requests.rows.map((row) => row.memberId))).toEqual(new Set([alice.memberId]));
  });

  it("gives a member nothing of another member's key, in totals, map, details and CSV", async () => {
    const query = { keyId: bob.keyId };
    const summary = await aliceUsage.summary(query);
    expect(summary.totals.requests).toBe(0);
    expect(summary.routingMap.nodes).toEqual([]);
    expect(summary.series.providers).toEqual([]);
    expect((await aliceUsage.requests(query)).rows).toEqual([]);
    const csv = parseCsv((await aliceUsage.csv(query)).text);
    expect(csv).toHaveLength(1);
  });

  it("filters a member's traffic by one of their keys", async () => {
    const summary = await aliceUsage.summary({ keyId: alice.secondKeyId });
    expect(summary.totals.requests).toBe(3);
    const rows = (await aliceUsage.requests({ keyId: alice.secondKeyId })).rows;
    expect(rows.map((row) => row.keyId)).toEqual([alice.secondKeyId, alice.secondKeyId, alice.secondKeyId]);
  });

  it('refuses the team scope to a member', async () => {
    const response = await aliceUsage.raw('/summary', { scope: 'team' });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('team_scope_admin_only');
  });

  it('lists a member only their own keys, and an administrator every key', async () => {
    const aliceKeys = await aliceUsage.keys();
    expect(aliceKeys.viewer).toMatchObject({ memberId: alice.memberId, canViewTeam: false, role: 'member' });
    expect(aliceKeys.keys.map((key) => key.id).sort()).toEqual([alice.keyId, alice.secondKeyId].sort());
    const adminKeys = await adminUsage.keys();
    expect(adminKeys.viewer.canViewTeam).toBe(true);
    expect(adminKeys.keys.map((key) => key.id)).toEqual(expect.arrayContaining([alice.keyId, bob.keyId]));
    expect(JSON.stringify(adminKeys)).not.toContain(alice.key);
  });

  it('lets an administrator see the team, narrow it to any key, and see their own traffic apart', async () => {
    expect((await adminUsage.summary({ scope: 'team' })).totals.requests).toBe(10);
    const bobOnly = await adminUsage.summary({ scope: 'team', keyId: bob.keyId });
    expect(bobOnly.totals.requests).toBe(4);
    expect(bobOnly.providers).toEqual(['beta']);
    expect((await adminUsage.requests({ scope: 'team', keyId: bob.keyId })).rows).toHaveLength(4);
    expect((await adminUsage.summary()).totals.requests).toBe(0);
  });

  it('answers 401 without a key, and refuses a key in the query string', async () => {
    const anonymous = await fetch(`${gateway.url}/usage-api/v1/summary`);
    expect(anonymous.status).toBe(401);
    const inUrl = await fetch(`${gateway.url}/usage-api/v1/summary?key=${encodeURIComponent(alice.key)}`);
    expect(inUrl.status).toBe(400);
  });

  it('refuses unknown query parameters and periods with a 400', async () => {
    expect((await aliceUsage.raw('/summary', { period: '90d' })).status).toBe(400);
    expect((await aliceUsage.raw('/summary', { colour: 'blue' })).status).toBe(400);
    expect((await aliceUsage.raw('/nothing-here')).status).toBe(404);
  });
});
