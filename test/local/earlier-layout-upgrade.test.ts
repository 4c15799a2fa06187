import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedDynalite } from '../../infra/local/embedded-dynalite.ts';
import { hashKeySecret } from '../../shared/auth/key-secret.ts';
import type { DynamoStore } from '../../shared/store/dynamodb/dynamo-store.ts';
import { createDocumentClient } from '../../shared/store/dynamodb/dynamo-tables.ts';
import { ensureTable } from '../../shared/store/dynamodb/ensure-tables.ts';
import {
  controlTable,
  earlierUsageTable,
  legacyUsageTable,
  rollupsTable,
} from '../../shared/store/table-definitions.ts';
import { runInProcess } from '../cli/cli-harness.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { parseCsv } from '../usage/parse-csv.ts';
import { UsageClient } from '../usage/usage-client.ts';

/**
 * A data folder written by a version before the lean DynamoDB layout: one member item holding its whole admission
 * state, records keyed by request id in `gateway-usage`, rollups under `day#<day>` with the day's totals under
 * `total#`. Its items are written here as that version wrote them; the first start on SQLite imports them all, and
 * the same folder opened on the `dynamodb` engine adopts the member at its first admission.
 */
let dataDir: string;
const adminKey = 'sk-gw-earlier-layout-admin-000001';
const memberSecret = 'sk-gw-earlier-layout-member-00001';
const day = '2025-04-02';
const earlierMember = {
  pk: 'member#mem_earlier',
  kind: 'member',
  id: 'mem_earlier',
  name: 'Earlier',
  role: 'member',
  status: 'active',
  policy: { dailyTokens: 100_000 },
  createdAt: `${day}T08:00:00.000Z`,
  keys: {
    key_earlier_aaaa1: { generation: 2, state: 'active' },
    key_earlier_bbbb2: { generation: 1, state: 'revoked' },
  },
  tokenDays: { [day]: 1_234 },
  minutes: {},
  keyMinutes: { key_earlier_aaaa1: {}, key_earlier_bbbb2: {} },
  leases: {},
  keyLeases: { key_earlier_aaaa1: {}, key_earlier_bbbb2: {} },
  holderDays: {},
};
const keyItem = (id: string, state: string, generation: number) => ({
  pk: `key#${id}`,
  kind: 'key',
  id,
  memberId: 'mem_earlier',
  name: id,
  state,
  generation,
  expiresAt: null,
  policy: {},
  createdAt: `${day}T08:00:00.000Z`,
  rotatedAt: null,
  keyPrefix: 'sk-gw-earl',
});
const record = {
  id: 'req_earlier_1',
  memberId: 'mem_earlier',
  keyId: 'key_earlier_aaaa1',
  provider: 'openai',
  model: 'openai/m',
  connectionId: 'con_earlier',
  upstream: 'lb',
  wire: 'openai-chat',
  stream: false,
  startedAt: `${day}T09:15:00.000Z`,
  day,
  reserved: 2_000,
  state: 'completed',
  status: 200,
  endedAt: `${day}T09:15:01.000Z`,
  durationMs: 1_000,
  inputTokens: 1_000,
  cachedInputTokens: null,
  outputTokens: 234,
  charge: 1_234,
  source: 'measured',
};
/** Writes a data folder as the earlier version left it: its tables and items, each as that version wrote them. */
async function writeEarlierFolder(folder: string, records: readonly Record<string, unknown>[]): Promise<void> {
  const dynalite = await startEmbeddedDynalite(folder);
  const client = new DynamoDBClient({
    region: 'local',
    endpoint: dynalite.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const documents = createDocumentClient({ region: 'local', endpoint: dynalite.endpoint });
  try {
    // The tables as that layout declared them: control, rollups and 0.1 records as today, records keyed by id.
    await ensureTable(client, 'gateway-control', controlTable);
    await ensureTable(client, 'gateway-usage', earlierUsageTable);
    await ensureTable(client, 'gateway-rollups', rollupsTable);
    await ensureTable(client, 'gateway-legacy-usage', legacyUsageTable);
    const put = (tableName: string, item: Record<string, unknown>) =>
      documents.send(new PutCommand({ TableName: tableName, Item: item }));
    await put('gateway-control', earlierMember);
    await put('gateway-control', keyItem('key_earlier_aaaa1', 'active', 2));
    await put('gateway-control', keyItem('key_earlier_bbbb2', 'revoked', 1));
    await put('gateway-control', {
      pk: `secret#${hashKeySecret(memberSecret)}`,
      keyId: 'key_earlier_aaaa1',
      memberId: 'mem_earlier',
      generation: 2,
    });
    for (const item of records) await put('gateway-usage', item);
    // The earlier layout's rollups: an hour item and the day's total per hour and identity, under `day#<day>`.
    for (const closed of records.filter((item) => item['state'] !== 'running')) {
      const startedAt = String(closed['startedAt']);
      const figures = {
        requests: 1,
        failed: closed['state'] === 'failed' ? 1 : 0,
        charge: closed['charge'],
        inputTokens: closed['inputTokens'] ?? 0,
        inputTokensReported: closed['inputTokens'] === null ? 0 : 1,
        cachedInputTokens: closed['cachedInputTokens'] ?? 0,
        cachedInputTokensReported: closed['cachedInputTokens'] === null ? 0 : 1,
        outputTokens: closed['outputTokens'] ?? 0,
        outputTokensReported: closed['outputTokens'] === null ? 0 : 1,
      };
      const identity = ['mem_earlier', 'key_earlier_aaaa1', 'lb', 'openai', 'openai/m'].join('#');
      const hour = startedAt.slice(11, 13);
      for (const sk of [`${hour}#${identity}`, `total#${identity}`]) {
        await documents.send(
          new UpdateCommand({
            TableName: 'gateway-rollups',
            Key: { pk: `day#${startedAt.slice(0, 10)}`, sk },
            UpdateExpression: `SET ${sk.startsWith('total') ? '' : '#hour = :hour, '}memberId = :m, keyId = :k, upstream = :u, provider = :p, model = :model ADD ${Object.keys(
              figures,
            )
              .map((name) => `${name} :${name}`)
              .join(', ')}`,
            ExpressionAttributeNames: sk.startsWith('total') ? undefined : { '#hour': 'hour' },
            ExpressionAttributeValues: {
              ...(sk.startsWith('total') ? {} : { ':hour': hour }),
              ':m': 'mem_earlier',
              ':k': 'key_earlier_aaaa1',
              ':u': 'lb',
              ':p': 'openai',
              ':model': 'openai/m',
              ...Object.fromEntries(Object.entries(figures).map(([name, value]) => [`:${name}`, value])),
            },
          }),
        );
      }
    }
  } finally {
    documents.destroy();
    client.destroy();
    await dynalite.close();
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-earlier-layout-'));
  await writeEarlierFolder(dataDir, [record]);
});
afterAll(async () => rm(dataDir, { recursive: true, force: true }));

describe('a data folder of the earlier DynamoDB layout', () => {
  it('is imported into SQLite whole: the member’s state, its keys, the record and the hour’s rollup', async () => {
    const gateway = await startTestGateway({ dataDir, adminKey, environment: { GATEWAY_STORE: 'sqlite' } });
    try {
      expect(gateway.host.storeNotes.join('\n')).toMatch(/1 usage records, 1 hourly rollups/);
      const { store } = gateway.host.services;
      const account = await store.admission.account('mem_earlier');
      expect(account).toMatchObject({
        name: 'Earlier',
        tokenDays: { [day]: 1_234 },
        keys: {
          key_earlier_aaaa1: { generation: 2, state: 'active' },
          key_earlier_bbbb2: { generation: 1, state: 'revoked' },
        },
      });
      expect(
        await store.records.get({ id: record.id, memberId: record.memberId, startedAt: record.startedAt }),
      ).toEqual(record);
      const days = await store.rollups.read({ by: 'day', first: day, last: day });
      expect(days).toMatchObject([{ requests: 1, charge: 1_234, outputTokensReported: 1 }]);
      expect(await store.keys.findBySecretHash(hashKeySecret(memberSecret))).toEqual({
        keyId: 'key_earlier_aaaa1',
        memberId: 'mem_earlier',
        generation: 2,
      });
    } finally {
      await gateway.close();
    }
  });

  it('on the dynamodb engine, gives the member its admission item at its first admission, keeping its day', async () => {
    const gateway = await startTestGateway({ dataDir, adminKey, environment: { GATEWAY_STORE: 'dynamodb' } });
    try {
      const { services } = gateway.host;
      services.now = () => new Date(`${day}T10:00:00.000Z`);
      const { authenticate } = await import('../../shared/auth/authenticate.ts');
      const { admit } = await import('../../shared/accounting/admit.ts');
      const principal = await authenticate(services, { authorization: `Bearer ${memberSecret}` });
      await admit(services, { principal, requestId: 'req_after_upgrade', reserve: 100 });
      const account = await services.store.admission.account('mem_earlier');
      expect(account?.tokenDays[day]).toBe(1_334);
      expect(account?.keys['key_earlier_aaaa1']).toMatchObject({ generation: 2, state: 'active' });
      expect(account?.keys['key_earlier_bbbb2']).toMatchObject({ state: 'revoked' });
      expect(Object.keys(account?.leases ?? {})).toEqual(['req_after_upgrade']);
    } finally {
      await gateway.close();
    }
  });
});

/**
 * The usage history of that layout, carried into the current one on the `dynamodb` engine by `usage
 * migrate-earlier-records` (the admin CLI against the running gateway): interrupted half-way, run again, imported
 * into SQLite while half done, and completed; the usage API then shows exactly the earlier requests plus the new
 * one, each once, in its totals, charts, details and CSV. The gateway's calendar is held on the instants below.
 */
describe('the earlier usage history, carried into the current layout', () => {
  const upgradeAt = Date.parse(`${day}T12:00:00.000Z`);
  const leaseTtlMs = 840_000 + 120_000;
  const earlierDays = ['2025-03-31', '2025-04-01', day];
  const history = earlierDays.flatMap((earlierDay, dayIndex) =>
    Array.from({ length: 5 }, (_, index) => {
      const number = dayIndex * 5 + index;
      const failed = number % 4 === 3;
      const startedAt = `${earlierDay}T${String(3 + index * 2).padStart(2, '0')}:${String(10 + number).padStart(2, '0')}:00.000Z`;
      return {
        ...record,
        id: `req_history_${String(number).padStart(2, '0')}`,
        startedAt,
        day: earlierDay,
        state: failed ? 'failed' : 'completed',
        status: failed ? 502 : 200,
        endedAt: startedAt.replace(':00.000Z', ':02.000Z'),
        durationMs: 2_000,
        inputTokens: failed ? null : 1_000 + number,
        outputTokens: failed ? null : 200 + number,
        charge: failed ? 2_000 : 1_200 + 2 * number,
        source: failed ? 'conservative' : 'measured',
      };
    }),
  );
  let folder: string;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'gateway-earlier-history-'));
    await writeEarlierFolder(folder, history);
    upstream = await startFakeUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
    await rm(folder, { recursive: true, force: true });
  });

  const start = async (engine: 'dynamodb' | 'sqlite', at: number) => {
    const gateway = await startTestGateway({ dataDir: folder, adminKey, environment: { GATEWAY_STORE: engine } });
    gateway.host.services.now = () => new Date(at);
    return gateway;
  };
  const migrate = (gateway: TestGateway, ...flags: string[]) =>
    runInProcess(['usage', 'migrate-earlier-records', ...flags], {
      env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: adminKey },
      fetch: globalThis.fetch,
    });

  const rebuild = (gateway: TestGateway, rebuiltDay: string) =>
    runInProcess(['usage', 'rebuild-rollups', '--from', rebuiltDay, '--to', rebuiltDay], {
      env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: adminKey },
      fetch: globalThis.fetch,
    });

  /** What the usage API shows the team over the last seven days: totals, the chart's days, details and the CSV. */
  async function teamUsage(gateway: TestGateway) {
    const usage = new UsageClient(gateway.url, adminKey);
    const query = { period: '7d', scope: 'team' };
    const summary = await usage.summary(query);
    const details = await usage.requests(query);
    const [header, ...rows] = parseCsv((await usage.csv(query)).text).filter((row) => row.length > 1);
    const column = (name: string) => (header ?? []).indexOf(name);
    return {
      totals: summary.totals,
      chartDays: Object.fromEntries(
        summary.series.buckets
          .map((bucket, index) => [
            bucket.slice(0, 10),
            summary.series.providers.reduce((sum, provider) => sum + (provider.requests[index] ?? 0), 0),
          ])
          .filter(([, requests]) => requests !== 0),
      ),
      details: details.rows,
      csv: rows.map((row) => ({ id: row[column('request_id')], charge: Number(row[column('charge')]) })),
    };
  }

  /** Exactly the earlier requests and the new ones, each once. */
  function expectHistoryAndNew(usage: Awaited<ReturnType<typeof teamUsage>>, fresh: readonly string[]) {
    const ids = [...history.map((earlier) => earlier.id), ...fresh].toSorted();
    expect(usage.details.map((row) => row.id).toSorted()).toEqual(ids);
    expect(usage.csv.map((row) => row.id).toSorted()).toEqual(ids);
    const freshRows = usage.details.filter((row) => fresh.includes(row.id));
    const charge = (rows: readonly { charge: number | null }[]) =>
      rows.reduce((sum, row) => sum + (row.charge ?? 0), 0);
    expect(usage.totals).toMatchObject({
      requests: ids.length,
      running: 0,
      failed: history.filter((earlier) => earlier.state === 'failed').length,
      charge: { value: charge(history) + charge(freshRows) },
      outputTokens: {
        value:
          history.reduce((sum, earlier) => sum + (earlier.outputTokens ?? 0), 0) +
          freshRows.reduce((sum, row) => sum + (row.outputTokens ?? 0), 0),
      },
    });
    expect(usage.chartDays).toEqual({ '2025-03-31': 5, '2025-04-01': 5, [day]: 5 + fresh.length });
    for (const row of usage.details) {
      const earlier = history.find((one) => one.id === row.id);
      if (earlier)
        expect(row).toMatchObject({ charge: earlier.charge, state: earlier.state, startedAt: earlier.startedAt });
    }
  }

  it('shows exactly the earlier history and the new traffic, each once, however the migration went', async () => {
    const gateway = await start('dynamodb', upgradeAt);
    let fresh: string;
    try {
      // New traffic after the upgrade, by the earlier member's key, on the upgrade's day.
      await gateway.admin.createConnection({
        provider: 'openai',
        wire: 'openai-chat',
        baseUrl: `${upstream.url}/v1`,
        models: ['m'],
      });
      const response = await fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${memberSecret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/m', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(200);
      fresh = String(response.headers.get('x-request-id'));
      await Promise.allSettled([...gateway.host.services.background]);
      // Before the migration the usage view knows the new request only.
      expect((await teamUsage(gateway)).details.map((row) => row.id)).toEqual([fresh]);

      // A first call dies half-way through the scan (the table throttles after a few writes): the CLI says so.
      const store = gateway.host.services.store as DynamoStore;
      let puts = 0;
      store.client.middlewareStack.add(
        (next, context) => async (args) => {
          if (/^Put/.test(context.commandName ?? '') && ++puts > 4) {
            throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: {} });
          }
          return next(args);
        },
        { step: 'initialize', name: 'throttleCarry', priority: 'low' },
      );
      const failed = await migrate(gateway);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/503/);
      store.client.middlewareStack.remove('throttleCarry');

      // Run again: the scan completes, and waits for the earlier version's requests to end (a lease length).
      const scanned = await migrate(gateway);
      expect(scanned.code, scanned.stderr).toBe(0);
      expect(scanned.stdout).toMatch(new RegExp(`^waiting until ${new Date(upgradeAt + leaseTtlMs).toISOString()}`));
      expect(scanned.stdout).toContain(`scanned ${history.length} earlier records`);
      // Carried records are in the details already; their rollups come with the fold. A rebuild of rollups now would
      // count them, and the fold again after it: refused until the migration is complete.
      expect((await teamUsage(gateway)).details).toHaveLength(history.length + 1);
      const rebuilt = await rebuild(gateway, '2025-03-31');
      expect(rebuilt.code).toBe(1);
      expect(rebuilt.stderr).toContain('migration_in_progress');

      // A lease length later the fold starts, and dies half-way through the rollups.
      gateway.host.services.now = () => new Date(upgradeAt + leaseTtlMs + 60_000);
      let updates = 0;
      store.client.middlewareStack.add(
        (next, context) => async (args) => {
          const table = (args.input as { TableName?: string }).TableName;
          if (/^Update/.test(context.commandName ?? '') && table === 'gateway-rollups' && ++updates > 3) {
            throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: {} });
          }
          return next(args);
        },
        { step: 'initialize', name: 'throttleFold', priority: 'low' },
      );
      expect((await migrate(gateway)).code).toBe(1);
      store.client.middlewareStack.remove('throttleFold');
      expect((await migrate(gateway, '--status')).stdout).toMatch(/^carrying \(fold\)/);
    } finally {
      await gateway.close();
    }

    // The folder, half migrated, opened on SQLite: imported with each request once, rollups counted from the records.
    const onSqlite = await start('sqlite', upgradeAt + leaseTtlMs + 60_000);
    try {
      expect(onSqlite.host.storeNotes.join('\n')).toMatch(/Upgrade: imported/);
      expectHistoryAndNew(await teamUsage(onSqlite), [fresh]);
    } finally {
      await onSqlite.close();
    }

    // Back on the dynamodb engine: the migration completes, and running it again changes nothing.
    const resumed = await start('dynamodb', upgradeAt + leaseTtlMs + 120_000);
    try {
      const completed = await migrate(resumed);
      expect(completed.code, completed.stderr).toBe(0);
      expect(completed.stdout).toMatch(
        new RegExp(
          `^complete since .*: scanned ${history.length} earlier records; ${history.length} earlier requests of 3 days`,
        ),
      );
      const after = await teamUsage(resumed);
      expectHistoryAndNew(after, [fresh]);
      const again = await migrate(resumed);
      expect(again.stdout).toBe(completed.stdout);
      expect(await teamUsage(resumed)).toEqual(after);
      // Once complete, rebuilding the rollups of the earlier days from their records changes nothing either.
      for (const earlierDay of earlierDays.slice(0, 2)) expect((await rebuild(resumed, earlierDay)).code).toBe(0);
      expect((await teamUsage(resumed)).totals).toEqual(after.totals);
    } finally {
      await resumed.close();
    }
  });
});
