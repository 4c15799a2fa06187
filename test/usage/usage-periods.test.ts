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
  '24h': '2030-06-14T10:00:00.000Z',
  '7d': '2030-06-09T00:00:00.000Z',
  '14d': '2030-06-02T00:00:00.000Z',
  '30d': '2030-05-17T00:00:00.000Z',
  '60d': '2030-04-17T00:00:00.000Z',
};
/** The first instant after each period: the end of today for calendar days, of the current hour for 24h. */
const ends: Record<PeriodId, string> = {
  today: '2030-06-16T00:00:00.000Z',
  '24h': '2030-06-15T11:00:00.000Z',
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
    expect(summary.series.buckets[0]).toBe(start);
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
