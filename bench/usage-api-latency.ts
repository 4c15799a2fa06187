/**
 * How fast the usage API answers for 60 days of a busy team, on the local host (dynalite on this machine).
 * Run: `npx tsx bench/usage-api-latency.ts`. Seeding writes items in the shapes settlement writes, with batch
 * writes (settling each request one by one would take far longer than the reads being measured); every read
 * goes through the real API over HTTP.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { GatewayServices } from '../shared/config/gateway-services.ts';
import type { RollupItem } from '../shared/store/rollup-queries.ts';
import type { UsageRecord } from '../shared/store/usage-record-store.ts';
import { mapWithConcurrency } from '../shared/usage/map-with-concurrency.ts';
import { startTestGateway } from '../test/support/test-gateway.ts';
import { percentile } from './statistics.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const members = 25;
const keysPerMember = 2;
const days = 60;
const requestsPerDay = 6_000;
// Recent records only: the API reads at most the newest 1,000, and the running-request read the last minutes.
const recordDays = 3;
const routes = [
  { upstream: 'lb', provider: 'alpha', model: 'alpha-k3' },
  { upstream: 'lb2', provider: 'alpha', model: 'alpha-k2.7-code' },
  { upstream: 'beta', provider: 'beta', model: 'beta-4-31b' },
  { upstream: 'gamma', provider: 'gamma', model: 'gamma' },
];

async function batchWrite(services: GatewayServices, tableName: string, items: Record<string, unknown>[]) {
  const batches: Record<string, unknown>[][] = [];
  for (let offset = 0; offset < items.length; offset += 25) batches.push(items.slice(offset, offset + 25));
  await mapWithConcurrency(batches, 8, async (batch) => {
    let pending = batch.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const result = await services.client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (result.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  });
}

const gateway = await startTestGateway();
const services = gateway.host.services;
const now = new Date();
const team: { memberId: string; keyIds: string[] }[] = [];
for (let index = 0; index < members; index++) {
  const memberId = await gateway.admin.createMember();
  const keyIds: string[] = [];
  for (let key = 0; key < keysPerMember; key++) keyIds.push((await gateway.admin.createKey(memberId)).id);
  team.push({ memberId, keyIds });
}
const viewer = await gateway.admin.createKey(team[0]?.memberId ?? '');

// Every key busy every hour on two routes: the densest rollups this team can produce.
const rollups: Record<string, unknown>[] = [];
const perItem = Math.round(requestsPerDay / (24 * members * keysPerMember * 2));
for (let day = 0; day < days; day++) {
  const date = new Date(now.getTime() - day * 86_400_000).toISOString().slice(0, 10);
  for (let hour = 0; hour < 24; hour++) {
    const hh = String(hour).padStart(2, '0');
    for (const { memberId, keyIds } of team) {
      for (const [keyIndex, keyId] of keyIds.entries()) {
        for (const route of [routes[keyIndex % 4], routes[(keyIndex + 2) % 4]]) {
          if (!route) continue;
          const item: RollupItem = {
            pk: `day#${date}`,
            sk: [hh, memberId, keyId, route.upstream, route.provider, route.model].join('#'),
            hour: hh,
            memberId,
            keyId,
            ...route,
            requests: perItem,
            failed: 1,
            charge: perItem * 2_000,
            inputTokens: perItem * 1_500,
            inputTokensReported: perItem - 1,
            cachedInputTokens: perItem * 300,
            cachedInputTokensReported: perItem - 2,
            outputTokens: perItem * 400,
            outputTokensReported: perItem - 1,
          };
          rollups.push(item as unknown as Record<string, unknown>);
          if (hour === 0) {
            // The day's total for the same identity, as addToRollup keeps it beside the hours.
            const { hour: _hour, ...total } = item;
            rollups.push({
              ...total,
              sk: ['total', memberId, keyId, route.upstream, route.provider, route.model].join('#'),
              requests: perItem * 24,
              failed: 24,
              charge: item.charge * 24,
              inputTokens: item.inputTokens * 24,
              inputTokensReported: item.inputTokensReported * 24,
              cachedInputTokens: item.cachedInputTokens * 24,
              cachedInputTokensReported: item.cachedInputTokensReported * 24,
              outputTokens: item.outputTokens * 24,
              outputTokensReported: item.outputTokensReported * 24,
            });
          }
        }
      }
    }
  }
}
const records: Record<string, unknown>[] = [];
const recordCount = recordDays * requestsPerDay;
for (let index = 0; index < recordCount; index++) {
  const member = team[index % members];
  const route = routes[index % routes.length];
  if (!member || !route) continue;
  const startedAt = new Date(now.getTime() - 60_000 - index * ((recordDays * 86_400_000) / recordCount));
  const record: UsageRecord = {
    id: `req_bench_${index}`,
    memberId: member.memberId,
    keyId: member.keyIds[index % keysPerMember] ?? '',
    ...route,
    connectionId: 'con_bench',
    wire: 'openai-chat',
    stream: true,
    startedAt: startedAt.toISOString(),
    day: startedAt.toISOString().slice(0, 10),
    reserved: 4_096,
    state: 'completed',
    status: 200,
    endedAt: new Date(startedAt.getTime() + 3_000).toISOString(),
    durationMs: 3_000,
    inputTokens: 1_500,
    cachedInputTokens: index % 5 === 0 ? null : 300,
    outputTokens: 400,
    charge: 1_900,
    source: 'measured',
  };
  records.push(record as unknown as Record<string, unknown>);
}
const seedStarted = performance.now();
await batchWrite(services, services.rollups.tableName, rollups);
await batchWrite(services, services.usage.tableName, records);
process.stdout.write(
  `seeded ${rollups.length} rollup items (${days} days) and ${records.length} records in ${Math.round((performance.now() - seedStarted) / 1000)} s\n`,
);

async function timed(label: string, key: string, path: string, runs = 5): Promise<void> {
  const times: number[] = [];
  let bytes = 0;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const response = await fetch(`${gateway.url}/usage-api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
    bytes = (await response.arrayBuffer()).byteLength;
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    times.push(performance.now() - started);
  }
  const median = percentile(times, 50);
  process.stdout.write(
    `${label.padEnd(44)} median ${median.toFixed(0).padStart(5)} ms  (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}; ${(bytes / 1024).toFixed(0)} KiB)\n`,
  );
}

await timed('summary, team, 60 days', gateway.adminKey, '/summary?period=60d&scope=team');
await timed('summary, team, 14 days', gateway.adminKey, '/summary?period=14d&scope=team');
await timed('summary, team, rolling 24 hours', gateway.adminKey, '/summary?period=24h&scope=team');
await timed('summary, team, today', gateway.adminKey, '/summary?period=today&scope=team');
await timed('summary, one member, 60 days', viewer.key, '/summary?period=60d');
await timed('summary, team, 60 days, one provider', gateway.adminKey, '/summary?period=60d&scope=team&providers=beta');
await timed('requests (newest 200), team, 60 days', gateway.adminKey, '/requests?period=60d&scope=team');
await timed('requests (newest 200), one member, 60 days', viewer.key, '/requests?period=60d');
await timed(
  'requests, team, 60 days, one key',
  gateway.adminKey,
  `/requests?period=60d&scope=team&keyId=${team[3]?.keyIds[1]}`,
);
await timed(
  'requests, team, 60 days, one provider',
  gateway.adminKey,
  '/requests?period=60d&scope=team&providers=gamma',
);
await timed('export.csv (newest 1,000), team, 60 days', gateway.adminKey, '/export.csv?period=60d&scope=team');
await gateway.close();
