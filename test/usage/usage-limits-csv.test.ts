import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvColumns } from '../../shared/usage/usage-csv.ts';
import type { DetailRow } from '../../shared/usage/usage-details.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { parseCsv } from './parse-csv.ts';
import { type SeedRequest, seedRequests, timesBackFrom } from './seed-usage.ts';
import { UsageClient } from './usage-client.ts';

const now = '2030-03-10T12:00:00.000Z';
// 1,050 of one member's requests, one every three minutes: more than both limits, across three UTC days.
const memberTimes = timesBackFrom('2030-03-10T11:59:00.000Z', 1_050, 180_000);
const otherTimes = timesBackFrom('2030-03-10T11:58:30.000Z', 40, 3_600_000);
const keyName = 'Ops, "night" batch\nsecond line';

let gateway: TestGateway;
let member: { memberId: string; keyId: string; key: string };
let usage: UsageClient;
let adminUsage: UsageClient;

beforeAll(async () => {
  gateway = await startTestGateway();
  gateway.host.services.now = () => new Date(now);
  const memberId = await gateway.admin.createMember();
  const issued = await gateway.admin.call<{ id: string; key: string }>('POST', '/keys', {
    memberId,
    name: keyName,
    policy: {},
  });
  member = { memberId, keyId: issued.id, key: issued.key };
  const other = await gateway.admin.createMemberWithKey();
  usage = new UsageClient(gateway.url, member.key);
  adminUsage = new UsageClient(gateway.url, gateway.adminKey);
  const seeds: SeedRequest[] = [
    ...memberTimes.map((startedAt, index) => ({
      memberId,
      keyId: member.keyId,
      startedAt,
      provider: index % 10 === 3 ? 'beta' : 'alpha',
      // Every seventh request has no output breakdown: it must come out as an empty field, not 0.
      outputTokens: index % 7 === 0 ? null : 40 + index,
    })),
    ...otherTimes.map((startedAt) => ({ memberId: other.memberId, keyId: other.keyId, startedAt })),
  ];
  await seedRequests(gateway.host.services, seeds);
}, 120_000);

afterAll(async () => {
  await gateway?.close();
});

function isNewestFirst(rows: readonly DetailRow[]): boolean {
  return rows.every((row, index) => index === 0 || (rows[index - 1] as DetailRow).startedAt > row.startedAt);
}

/** The CSV cells a details row should produce: what parsing the export back must give. */
function expectedCells(row: DetailRow): string[] {
  const cell = (value: string | number | boolean | null) => (value === null ? '' : String(value));
  return [
    row.startedAt,
    row.endedAt,
    row.id,
    row.memberId,
    row.keyId,
    row.keyLabel,
    row.upstream,
    row.provider,
    row.model,
    row.wire,
    row.stream,
    row.state,
    row.status,
    row.inputTokens,
    row.cachedInputTokens,
    row.outputTokens,
    row.charge,
    row.reserved,
    row.source,
    row.durationMs,
  ].map(cell);
}

describe('usage limits (spec §8) and the CSV export', () => {
  it('lists the newest 200 matching requests, newest first, and says there are more', async () => {
    const page = await usage.requests({ period: '7d' });
    expect(page.limit).toBe(200);
    expect(page.more).toBe(true);
    expect(page.rows.map((row) => row.startedAt)).toEqual(memberTimes.slice(0, 200));
    expect(isNewestFirst(page.rows)).toBe(true);
  });

  it('exports the newest 1,000 matching records as RFC 4180 CSV that parses back to the same rows', async () => {
    const { text, response } = await usage.csv({ period: '7d' });
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="usage-7d-2030-03-10.csv"');
    expect(response.headers.get('x-usage-more')).toBe('true');
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
    const [header, ...records] = parseCsv(text);
    expect(header).toEqual([...csvColumns]);
    expect(records).toHaveLength(1_000);
    expect(records.map((record) => record[0])).toEqual(memberTimes.slice(0, 1_000));

    const details = await usage.requests({ period: '7d' });
    expect(records.slice(0, 200)).toEqual(details.rows.map(expectedCells));
    expect(records[0]?.[csvColumns.indexOf('key_name')]).toContain(keyName);
    const unknownOutput = records.find((record) => record[0] === memberTimes[7]);
    expect(unknownOutput?.[csvColumns.indexOf('output_tokens')]).toBe('');
    expect(unknownOutput?.[csvColumns.indexOf('input_tokens')]).toBe('100');
  });

  it('applies the same limits to the whole team across day partitions', async () => {
    const everyone = [...memberTimes, ...otherTimes].sort().reverse();
    const page = await adminUsage.requests({ period: '7d', scope: 'team' });
    expect(page.rows.map((row) => row.startedAt)).toEqual(everyone.slice(0, 200));
    const [, ...records] = parseCsv((await adminUsage.csv({ period: '7d', scope: 'team' })).text);
    expect(records.map((record) => record[0])).toEqual(everyone.slice(0, 1_000));
  });

  it('applies the provider filter before the limit', async () => {
    const beta = memberTimes.filter((_, index) => index % 10 === 3);
    const page = await usage.requests({ period: '7d', providers: 'beta' });
    expect(page.more).toBe(false);
    expect(page.rows.map((row) => row.startedAt)).toEqual(beta);
    const summary = await usage.summary({ period: '7d', providers: 'beta' });
    expect(summary.totals.requests).toBe(beta.length);
    expect(summary.providers).toEqual(['alpha', 'beta']);
  });

  it('keeps the totals exact however many records there are', async () => {
    const summary = await usage.summary({ period: '7d' });
    const unknownOutputs = memberTimes.filter((_, index) => index % 7 === 0).length;
    expect(summary.totals.requests).toBe(1_050);
    expect(summary.totals.outputTokens.reportedBy).toBe(1_050 - unknownOutputs);
    const expectedOutput = memberTimes.reduce((sum, _, index) => sum + (index % 7 === 0 ? 0 : 40 + index), 0);
    expect(summary.totals.outputTokens.value).toBe(expectedOutput);
  });
});
