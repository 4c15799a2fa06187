import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClosedRequest, RollupRow } from '../../shared/store/usage-records.ts';
import { runInProcess } from '../cli/cli-harness.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

/**
 * `usage rebuild-rollups`: the admin CLI through the real admin API of the local host, on this run's engine (SQLite,
 * and the embedded dynalite in the `dynamodb engine` project): the rollups of whole days are made again from their
 * records, whatever they held before, and a day whose requests may still settle is refused.
 */
let gateway: TestGateway;
let day: string;
const memberIds = ['mem_rebuild_a', 'mem_rebuild_b'];

function closedRequest(index: number, memberId: string, hour: string): ClosedRequest {
  const startedAt = `${day}T${hour}:10:${String(index).padStart(2, '0')}.000Z`;
  return {
    record: {
      id: `req_rebuild_${index}`,
      memberId,
      keyId: `key_${memberId}`,
      provider: index % 2 ? 'alpha' : 'beta',
      model: index % 2 ? 'alpha/alpha-k3' : 'beta/beta-4-31b',
      connectionId: 'con_rebuild',
      upstream: 'lb',
      wire: 'openai-chat',
      stream: false,
      startedAt,
      day,
      reserved: 100,
      state: 'running',
    },
    outcome: {
      state: index === 4 ? 'failed' : 'completed',
      status: index === 4 ? 502 : 200,
      endedAt: startedAt,
      durationMs: 10,
      inputTokens: index === 3 ? null : 10 * index,
      cachedInputTokens: null,
      outputTokens: 5,
      charge: 10 * index + 5,
      source: 'measured',
    },
  };
}

const rebuild = (...flags: string[]) =>
  runInProcess(['usage', 'rebuild-rollups', ...flags], {
    env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey },
    fetch: globalThis.fetch,
  });

const stable = (rows: readonly RollupRow[]) => rows.map((row) => JSON.stringify(row, Object.keys(row).sort())).sort();

let records: ClosedRequest[];

beforeAll(async () => {
  gateway = await startTestGateway();
  // Three days back: every request of that day has settled, whatever the lease length.
  day = new Date(gateway.host.services.now().getTime() - 3 * 86_400_000).toISOString().slice(0, 10);
  records = [1, 2, 3, 4, 5].map((index) =>
    closedRequest(index, memberIds[index % 2] as string, index < 4 ? '07' : '19'),
  );
  const { store } = gateway.host.services;
  for (const closed of records) expect(await store.records.close(closed)).toBe(true);
  // Rollups that disagree with the records: one request counted twice, one missing, one identity with no records.
  await store.rollups.add([records[0] as ClosedRequest, records[0] as ClosedRequest, records[1] as ClosedRequest]);
  await store.rollups.add([
    { ...(records[2] as ClosedRequest), record: { ...(records[2] as ClosedRequest).record, keyId: 'key_gone' } },
  ]);
});
afterAll(async () => gateway?.close());

describe('rebuilding rollups from records', () => {
  it('replaces a day’s hourly and daily rollups with what its records add up to', async () => {
    const { store } = gateway.host.services;
    const run = await rebuild('--from', day, '--to', day, '--json');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ days: 1, records: 5, rows: 4 });

    // What folding the records afresh gives, through the same store verb, on a day nothing else touched.
    const hours = await store.rollups.read({ by: 'hour', first: `${day}T00`, last: `${day}T23` });
    const { foldIntoRollups } = await import('../../shared/store/usage-records.ts');
    expect(stable(hours.filter((row) => memberIds.includes(row.memberId)))).toEqual(stable(foldIntoRollups(records)));
    const days = await store.rollups.read({ by: 'day', first: day, last: day });
    const ofMembers = days.filter((row) => memberIds.includes(row.memberId));
    expect(ofMembers.reduce((sum, row) => sum + row.requests, 0)).toBe(5);
    expect(ofMembers.reduce((sum, row) => sum + row.failed, 0)).toBe(1);
    expect(ofMembers.reduce((sum, row) => sum + row.charge, 0)).toBe(10 * 15 + 25);
    expect(ofMembers.reduce((sum, row) => sum + row.inputTokensReported, 0)).toBe(4);
    expect(days.some((row) => row.keyId === 'key_gone')).toBe(false);

    // Again: the same rollups.
    expect(JSON.parse((await rebuild('--from', day, '--to', day, '--json')).stdout)).toEqual({
      days: 1,
      records: 5,
      rows: 4,
    });
    expect(stable(await store.rollups.read({ by: 'hour', first: `${day}T00`, last: `${day}T23` }))).toEqual(
      stable(hours),
    );
  });

  it('refuses a day whose requests may still settle, and a range the wrong way round, before sending anything', async () => {
    const today = gateway.host.services.now().toISOString().slice(0, 10);
    const open = await rebuild('--from', today, '--to', today);
    expect(open.code).toBe(1);
    expect(open.stderr).toContain('rebuild_day_open');
    const backwards = await rebuild('--from', day, '--to', '2000-01-01');
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toMatch(/before --from/);
    expect((await rebuild('--from', '2025-02-30', '--to', '2025-03-01')).code).toBe(2);
    expect((await rebuild('--from', day)).stderr).toMatch(/missing required flag --to/);
  });
});
