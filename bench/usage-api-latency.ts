/**
 * How fast the usage API answers for 60 days of a busy team, on the local host, on the engine `GATEWAY_TEST_STORE`
 * names (SQLite by default; `dynamodb` for the embedded dynalite, whose seeding takes minutes).
 * Run: `npx tsx bench/usage-api-latency.ts`. Seeding goes through the store port (closed records, rollups added in
 * large batches: settling each request one by one would take far longer than the reads being measured); every
 * read goes through the real API over HTTP.
 */
import { mapWithConcurrency } from '../shared/async-work/map-with-concurrency.ts';
import type { ClosedRequest, RunningRecord } from '../shared/store/usage-records.ts';
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

function closedRequest(
  index: number,
  memberId: string,
  keyId: string,
  route: (typeof routes)[number],
  startedAt: Date,
): ClosedRequest {
  const record: RunningRecord = {
    id: `req_bench_${index}`,
    memberId,
    keyId,
    ...route,
    connectionId: 'con_bench',
    wire: 'openai-chat',
    stream: true,
    startedAt: startedAt.toISOString(),
    day: startedAt.toISOString().slice(0, 10),
    reserved: 4_096,
    state: 'running',
  };
  return {
    record,
    outcome: {
      state: index % 50 === 0 ? 'failed' : 'completed',
      status: 200,
      endedAt: new Date(startedAt.getTime() + 3_000).toISOString(),
      durationMs: 3_000,
      inputTokens: 1_500,
      cachedInputTokens: index % 5 === 0 ? null : 300,
      outputTokens: 400,
      charge: 1_900,
      source: 'measured',
    },
  };
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
const rollupRequests: ClosedRequest[] = [];
const perHour = Math.max(1, Math.round(requestsPerDay / (24 * members * keysPerMember * 2)));
for (let day = 0; day < days; day++) {
  for (let hour = 0; hour < 24; hour++) {
    const startedAt = new Date(Math.floor(now.getTime() / 86_400_000 - day) * 86_400_000 + hour * 3_600_000);
    for (const { memberId, keyIds } of team) {
      for (const [keyIndex, keyId] of keyIds.entries()) {
        for (const route of [routes[keyIndex % 4], routes[(keyIndex + 2) % 4]]) {
          if (!route) continue;
          for (let request = 0; request < perHour; request++) {
            rollupRequests.push(closedRequest(rollupRequests.length, memberId, keyId, route, startedAt));
          }
        }
      }
    }
  }
}
const records: ClosedRequest[] = [];
const recordCount = recordDays * requestsPerDay;
for (let index = 0; index < recordCount; index++) {
  const member = team[index % members];
  const route = routes[index % routes.length];
  if (!member || !route) continue;
  const startedAt = new Date(now.getTime() - 60_000 - index * ((recordDays * 86_400_000) / recordCount));
  records.push(closedRequest(index, member.memberId, member.keyIds[index % keysPerMember] ?? '', route, startedAt));
}
const seedStarted = performance.now();
const batches: ClosedRequest[][] = [];
for (let offset = 0; offset < rollupRequests.length; offset += 5_000)
  batches.push(rollupRequests.slice(offset, offset + 5_000));
await mapWithConcurrency(batches, 4, (batch) => services.store.rollups.add(batch));
await mapWithConcurrency(records, 16, (closed) => services.store.records.close(closed));
process.stdout.write(
  `seeded ${rollupRequests.length} requests into the rollups (${days} days) and ${records.length} records on ` +
    `${services.store.engine} in ${Math.round((performance.now() - seedStarted) / 1000)} s\n`,
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
