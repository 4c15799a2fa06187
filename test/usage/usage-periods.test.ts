import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PeriodId } from '../../shared/usage/usage-period.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { seedRequests } from './seed-usage.ts';
import { UsageClient } from './usage-client.ts';

// A fixed clock on the real host: the periods are computed from `services.now()`, so boundaries are exact.
const now = '2030-06-15T10:30:00.000Z';

/** First instant inside each period and the instant just before it (spec §4.6: UTC, calendar days). */
const starts: Record<PeriodId, string> = {
  today: '2030-06-15T00:00:00.000Z',
  '24h': '2030-06-14T10:30:00.000Z',
  '7d': '2030-06-09T00:00:00.000Z',
  '14d': '2030-06-02T00:00:00.000Z',
  '30d': '2030-05-17T00:00:00.000Z',
  '60d': '2030-04-17T00:00:00.000Z',
};
/** The first instant after each period: the end of today for calendar days; just after now for 24h. */
const ends: Record<PeriodId, string> = {
  today: '2030-06-16T00:00:00.000Z',
  '24h': '2030-06-15T10:30:00.001Z',
  '7d': '2030-06-16T00:00:00.000Z',
  '14d': '2030-06-16T00:00:00.000Z',
  '30d': '2030-06-16T00:00:00.000Z',
  '60d': '2030-06-16T00:00:00.000Z',
};
const justBefore = (iso: string) => new Date(Date.parse(iso) - 1).toISOString();

const expectedBuckets: Record<PeriodId, { bucket: 'hour' | 'day'; count: number }> = {
  today: { bucket: 'hour', count: 24 },
  '24h': { bucket: 'hour', count: 25 },
  '7d': { bucket: 'day', count: 7 },
  '14d': { bucket: 'day', count: 14 },
  '30d': { bucket: 'day', count: 30 },
  '60d': { bucket: 'day', count: 60 },
};

let gateway: TestGateway;
let usage: UsageClient;
const seeded: string[] = [];

beforeAll(async () => {
  gateway = await startTestGateway();
  gateway.host.services.now = () => new Date(now);
  const member = await gateway.admin.createMemberWithKey();
  usage = new UsageClient(gateway.url, member.key);
  const boundaries = new Set([...Object.values(starts), ...Object.values(ends)]);
  for (const boundary of boundaries) seeded.push(boundary, justBefore(boundary));
  await seedRequests(
    gateway.host.services,
    seeded.map((startedAt) => ({ memberId: member.memberId, keyId: member.keyId, startedAt })),
  );
});

afterAll(async () => {
  await gateway?.close();
});

describe('usage periods (spec §4.6)', () => {
  it.each(Object.keys(starts) as PeriodId[])('%s starts and ends on its UTC boundary', async (period) => {
    const [start, end] = [starts[period], ends[period]];
    const inside = seeded
      .filter((startedAt) => startedAt >= start && startedAt < end)
      .sort()
      .reverse();
    expect(inside).toEqual(expect.arrayContaining([start, justBefore(end)]));
    expect(inside).not.toContain(justBefore(start));
    expect(inside).not.toContain(end);

    const summary = await usage.summary({ period });
    expect(summary.period).toMatchObject({ id: period, start, end });
    expect(summary.totals.requests).toBe(inside.length);
    expect(summary.series.bucket).toBe(expectedBuckets[period].bucket);
    expect(summary.series.buckets).toHaveLength(expectedBuckets[period].count);
    // Chart buckets are whole hours or days; the rolling 24 hours' first one begins before the period does.
    expect(summary.series.buckets[0]).toBe(period === '24h' ? '2030-06-14T10:00:00.000Z' : start);
    const charted = summary.series.providers.flatMap((line) => line.requests).reduce((sum, value) => sum + value, 0);
    expect(charted).toBe(inside.length);

    const rows = (await usage.requests({ period })).rows;
    expect(rows.map((row) => row.startedAt)).toEqual(inside);
  });

  it('defaults to 14 days', async () => {
    const summary = await usage.summary();
    expect(summary.period.id).toBe('14d');
    expect(summary.period.start).toBe(starts['14d']);
  });
});

/**
 * The rolling 24 hours is exact at any instant: it was once widened to whole hours, up to 24 h 59 min. At each
 * pinned instant, requests just inside both ends count and requests just outside do not, in the totals, the
 * charts and the details alike — whole hours come from the rollups, the partial hours at the edges from records.
 */
describe('the rolling 24 hours at pinned instants', () => {
  const instants = [
    '2030-06-15T10:30:00.000Z',
    '2030-06-15T10:59:59.999Z',
    '2030-06-15T11:00:00.000Z',
    '2030-06-15T23:59:50.000Z',
    '2030-06-16T00:00:00.000Z',
  ];
  const dayMs = 86_400_000;

  it.each(instants)('at %s it covers exactly the 24 hours up to now', async (instant) => {
    const now = Date.parse(instant);
    const at = (offsetMs: number) => new Date(now + offsetMs).toISOString();
    const inside = [at(-dayMs), at(-dayMs + 1), at(-dayMs + 60_000), at(-12 * 3_600_000), at(-1), at(0)];
    // Just outside: a millisecond before the start, the whole hour the start falls in (the old widening), after now.
    const hourBefore = new Date(Math.floor((now - dayMs) / 3_600_000) * 3_600_000).toISOString();
    const outside = [at(-dayMs - 1), at(1), at(60_000), ...(hourBefore < at(-dayMs) ? [hourBefore] : [])];
    const member = await gateway.admin.createMemberWithKey();
    await seedRequests(
      gateway.host.services,
      [...inside, ...outside].map((startedAt) => ({ memberId: member.memberId, keyId: member.keyId, startedAt })),
    );
    const viewer = new UsageClient(gateway.url, member.key);
    const held = gateway.host.services.now;
    gateway.host.services.now = () => new Date(now);
    try {
      const summary = await viewer.summary({ period: '24h' });
      expect(summary.period).toMatchObject({ start: at(-dayMs), end: at(1) });
      expect(summary.totals.requests).toBe(inside.length);
      expect(summary.totals.charge.value).toBe(inside.length * 150);
      const charted = summary.series.providers.flatMap((line) => line.requests).reduce((sum, value) => sum + value, 0);
      expect(charted).toBe(inside.length);
      const rows = (await viewer.requests({ period: '24h' })).rows;
      expect(rows.map((row) => row.startedAt)).toEqual([...inside].sort().reverse());
    } finally {
      gateway.host.services.now = held;
    }
  });
});
