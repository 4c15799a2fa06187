import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { type SeedRequest, seedRequests } from './seed-usage.ts';
import { UsageClient } from './usage-client.ts';

const now = '2030-08-20T15:40:00.000Z';
const at = (minutesAgo: number) => new Date(Date.parse(now) - minutesAgo * 60_000).toISOString();

let gateway: TestGateway;
let usage: UsageClient;
let keyIds: { main: string; batch: string };

beforeAll(async () => {
  gateway = await startTestGateway();
  gateway.host.services.now = () => new Date(now);
  const member = await gateway.admin.createMemberWithKey();
  const batch = await gateway.admin.createKey(member.memberId);
  keyIds = { main: member.keyId, batch: batch.id };
  usage = new UsageClient(gateway.url, member.key);
  const base = { memberId: member.memberId };
  const seeds: SeedRequest[] = [
    // Fully reported.
    { ...base, keyId: keyIds.main, startedAt: at(300), inputTokens: 1_000, cachedInputTokens: 400, outputTokens: 200 },
    { ...base, keyId: keyIds.main, startedAt: at(200), inputTokens: 500, cachedInputTokens: 0, outputTokens: 100 },
    // The provider reported no cache figure, as on records made before it was recorded.
    { ...base, keyId: keyIds.batch, startedAt: at(120), inputTokens: 300, cachedInputTokens: null, outputTokens: 30 },
    // A stream cut short: nothing reported, the reservation stays as the charge.
    {
      ...base,
      keyId: keyIds.batch,
      startedAt: at(90),
      state: 'failed',
      status: 502,
      inputTokens: null,
      cachedInputTokens: null,
      outputTokens: null,
      charge: 1_000,
    },
    {
      ...base,
      keyId: keyIds.main,
      startedAt: at(60),
      provider: 'beta',
      model: 'beta-4-31b',
      upstream: 'beta',
      inputTokens: 70,
      cachedInputTokens: 0,
      outputTokens: 7,
    },
    // Still running: counted as a request and on the routing map, with nothing reported yet.
    { ...base, keyId: keyIds.main, startedAt: at(2), state: 'running' },
    { ...base, keyId: keyIds.batch, startedAt: at(1), provider: 'beta', model: 'beta-4-31b', state: 'running' },
  ];
  await seedRequests(gateway.host.services, seeds);
});

afterAll(async () => {
  await gateway?.close();
});

describe('usage totals, routing map and details', () => {
  it('states how many requests reported each figure, with unknown breakdowns mixed in', async () => {
    const { totals } = await usage.summary({ period: 'today' });
    expect(totals).toMatchObject({ requests: 7, completed: 4, failed: 1, running: 2 });
    expect(totals.inputTokens).toEqual({ value: 1_870, reportedBy: 4 });
    expect(totals.cachedInputTokens).toEqual({ value: 400, reportedBy: 3 });
    expect(totals.outputTokens).toEqual({ value: 337, reportedBy: 4 });
    expect(totals.charge).toEqual({ value: 4 * 150 + 1_000, reportedBy: 5 });
    expect(totals.estimatedCost).toEqual({ available: false, reason: expect.stringContaining('pricing') });
  });

  it('maps keys → upstream → provider → model with failed and running requests counted', async () => {
    const { routingMap } = await usage.summary({ period: 'today' });
    const edge = (from: string, to: string) => routingMap.edges.find((e) => e.from === from && e.to === to);
    expect(edge(`key:${keyIds.main}`, 'upstream:lb')).toEqual({
      from: `key:${keyIds.main}`,
      to: 'upstream:lb',
      requests: 3,
      failed: 0,
      running: 1,
    });
    expect(edge(`key:${keyIds.batch}`, 'upstream:lb')).toMatchObject({ requests: 3, failed: 1, running: 1 });
    expect(edge('upstream:beta', 'provider:beta')).toMatchObject({ requests: 1 });
    expect(edge('provider:alpha', 'model:alpha/alpha-k3')).toMatchObject({ requests: 5, failed: 1, running: 1 });
    expect(edge('provider:beta', 'model:beta/beta-4-31b')).toMatchObject({ requests: 2, running: 1 });
    const keyNode = routingMap.nodes.find((node) => node.id === `key:${keyIds.main}`);
    expect(keyNode?.label).toMatch(/^test key · sk-gw-/);
  });

  it('applies provider nodes to totals, charts, map and details together', async () => {
    const summary = await usage.summary({ period: 'today', providers: 'beta' });
    expect(summary.totals).toMatchObject({ requests: 2, running: 1 });
    expect(summary.series.providers.map((line) => line.provider)).toEqual(['beta']);
    expect(summary.routingMap.nodes.filter((node) => node.column === 'provider').map((node) => node.id)).toEqual([
      'provider:beta',
    ]);
    expect(summary.providers).toEqual(['alpha', 'beta']);
    const rows = (await usage.requests({ period: 'today', providers: 'beta' })).rows;
    expect(rows.map((row) => row.provider)).toEqual(['beta', 'beta']);

    const both = await usage.summary({ period: 'today', providers: 'beta', keyId: keyIds.batch });
    expect(both.totals.requests).toBe(1);
  });

  it('shows unknown breakdowns as null, never 0, and running requests without an outcome', async () => {
    const rows = (await usage.requests({ period: 'today' })).rows;
    expect(rows.map((row) => row.state)).toEqual([
      'running',
      'running',
      'completed',
      'failed',
      'completed',
      'completed',
      'completed',
    ]);
    expect(rows[0]).toMatchObject({ status: null, outputTokens: null, charge: null, source: null, reserved: 1_000 });
    expect(rows[3]).toMatchObject({ status: 502, inputTokens: null, outputTokens: null, source: 'conservative' });
    expect(rows[4]).toMatchObject({ inputTokens: 300, cachedInputTokens: null, outputTokens: 30 });
  });

  it('charts requests and reported tokens per hour by provider', async () => {
    const { series } = await usage.summary({ period: 'today' });
    const alpha = series.providers.find((line) => line.provider === 'alpha');
    const hour = (iso: string) => series.buckets.indexOf(`${iso.slice(0, 13)}:00:00.000Z`);
    expect(alpha?.requests[hour(at(300))]).toBe(1);
    expect(alpha?.inputTokens[hour(at(300))]).toBe(1_000);
    expect(alpha?.failed.reduce((sum, value) => sum + value, 0)).toBe(1);
    expect(alpha?.requests.reduce((sum, value) => sum + value, 0)).toBe(5);
  });
});
