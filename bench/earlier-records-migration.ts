/**
 * How long the migration of the earlier DynamoDB layout's usage history takes (`usage migrate-earlier-records`),
 * on the embedded dynalite: N records of the earlier layout (default 20,000, over 30 days and 20 members) carried
 * and folded with the budgets the functions use, timed per step kind, with the DynamoDB calls it made. dynalite
 * runs every call on this machine's CPU, so the figures bound the work, not AWS's latency (docs/store.md, "Upgrading a
 * stage deployed with the earlier layout", prices it for AWS). Run: `npx tsx bench/earlier-records-migration.ts
 * [N]`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startEmbeddedDynalite } from '../infra/local/embedded-dynalite.ts';
import { localEarlierUsageTable, localTableNames } from '../infra/local/open-local-store.ts';
import { startStopwatch } from '../shared/clock/monotonic-deadline.ts';
import { parseGatewayConfig } from '../shared/config/gateway-config.ts';
import { createGatewayServices } from '../shared/config/gateway-services.ts';
import { createDynamoStore } from '../shared/store/dynamodb/dynamo-store.ts';
import { ensureTable, ensureTables } from '../shared/store/dynamodb/ensure-tables.ts';
import { earlierUsageTable } from '../shared/store/table-definitions.ts';
import type { UsageRecord } from '../shared/store/usage-records.ts';
import { migrateEarlierRecords, migrationBudgetMs } from '../shared/usage/migrate-earlier-records.ts';

const count = Number(process.argv[2] ?? 20_000);
const firstDay = Date.parse('2025-03-01T00:00:00.000Z');
const upgradeAt = Date.parse('2025-04-01T12:00:00.000Z');

function earlierRecord(index: number): UsageRecord {
  const startedAt = new Date(firstDay + Math.floor((index / count) * 30 * 86_400_000)).toISOString();
  return {
    id: `req_${String(index).padStart(8, '0')}`,
    memberId: `mem_bench_${index % 20}`,
    keyId: `key_bench_${index % 40}`,
    provider: index % 3 === 0 ? 'anthropic' : 'openai',
    model: index % 3 === 0 ? 'anthropic/k2' : 'openai/m',
    connectionId: 'con_bench',
    upstream: 'lb',
    wire: 'openai-chat',
    stream: index % 2 === 0,
    startedAt,
    day: startedAt.slice(0, 10),
    reserved: 4_096,
    state: 'completed',
    status: 200,
    endedAt: startedAt,
    durationMs: 900,
    inputTokens: 1_000 + (index % 500),
    cachedInputTokens: index % 4 === 0 ? 200 : null,
    outputTokens: 300 + (index % 200),
    charge: 1_300 + (index % 700),
    source: 'measured',
  };
}

const dataDir = await mkdtemp(join(tmpdir(), 'bench-earlier-migration-'));
const dynalite = await startEmbeddedDynalite(dataDir);
const client = new DynamoDBClient({
  region: 'local',
  endpoint: dynalite.endpoint,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
try {
  await ensureTables(client, localTableNames);
  await ensureTable(client, localEarlierUsageTable, earlierUsageTable);
  const store = createDynamoStore({
    region: 'local',
    endpoint: dynalite.endpoint,
    tableNames: localTableNames,
    earlierUsageTable: localEarlierUsageTable,
  });
  for (let start = 0; start < count; start += 25) {
    const items = Array.from({ length: Math.min(25, count - start) }, (_, offset) => earlierRecord(start + offset));
    await store.client.send(
      new BatchWriteCommand({
        RequestItems: { [localEarlierUsageTable]: items.map((item) => ({ PutRequest: { Item: item } })) },
      }),
    );
  }
  const calls = new Map<string, number>();
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName).replace(/Command$/, '');
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countCalls' },
  );
  const services = createGatewayServices(
    parseGatewayConfig({ AWS_REGION: 'local', GATEWAY_SECRET_STORE: 'file', GATEWAY_SECRET_FILE: 'unused' }),
    store,
  );
  const phases: { phase: string; passes: number; ms: number }[] = [];
  for (const [phase, at] of [
    ['scan', upgradeAt],
    ['sweep and fold', upgradeAt + services.config.leaseTtlMs + 60_000],
  ] as const) {
    services.now = () => new Date(at);
    const stopwatch = startStopwatch();
    let passes = 0;
    let state = 'carrying';
    while (state === 'carrying') {
      state = (await migrateEarlierRecords(services, migrationBudgetMs.scheduledPass)).state;
      passes++;
    }
    phases.push({ phase, passes, ms: stopwatch.elapsedMs() });
  }
  const progress = await store.earlierRecords.progress(new Date(upgradeAt + services.config.leaseTtlMs + 60_000));
  console.log(`earlier records migrated on dynalite: ${count} records over 30 days, 20 members`);
  for (const { phase, passes, ms } of phases) {
    console.log(`  ${phase}: ${ms} ms in ${passes} pass(es), ${Math.round((count / ms) * 1000)} records/s`);
  }
  console.log(
    `  result: ${progress.state}, ${progress.foldedRecords} records in the rollups over ${progress.days} days`,
  );
  console.log(`  DynamoDB calls: ${[...calls].map(([name, calls]) => `${name} ${calls}`).join(', ')}`);
  await store.close();
} finally {
  client.destroy();
  await dynalite.close();
  await rm(dataDir, { recursive: true, force: true });
}
