import { subscribe } from 'node:diagnostics_channel';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startGatewayHost } from '../infra/local/gateway-host.ts';
import { generateKeySecret } from '../shared/auth/key-secret.ts';
import { AdminClient } from '../test/support/test-gateway.ts';
import { answerParent, tellParentReady } from './child-process.ts';
import {
  type CpuProfile,
  type HeapProfile,
  startHeapSampling,
  startProfiling,
  summarizeHeapProfile,
} from './cpu-profile.ts';
import { benchModels } from './instant-upstream.ts';
import { spread } from './statistics.ts';
import { type RoundTripSplit, StoreRoundTrips, splitAroundDispatch } from './store-round-trips.ts';

/**
 * This gateway as the benchmark runs it: the real local host (`startGatewayHost`, as `npm start` runs it) with
 * the embedded store, full authentication, admission and settlement, and the production cache settings. The
 * only additions are the store round-trip counter and a mark on the moment each upstream call leaves.
 */
export interface GatewayReady {
  url: string;
  /** One key per member: load spreads over a team rather than piling every admission on one item. */
  keys: string[];
}

export const benchMemberCount = 8;

const upstreamUrl = process.env.BENCH_UPSTREAM_URL;
if (!upstreamUrl) throw new Error('BENCH_UPSTREAM_URL is not set');

const dataDir = await mkdtemp(join(tmpdir(), 'gateway-bench-'));
const adminKey = generateKeySecret('gw');
const host = await startGatewayHost({
  host: '127.0.0.1',
  port: 0,
  dataDir,
  adminKey,
  environment: process.env,
  // The reaper's periodic scan would add store calls that belong to no request.
  reaperIntervalMs: 0,
});
const { services } = host;
const roundTrips = new StoreRoundTrips(services.store);

/**
 * When the counted request's upstream call left: Node's HTTP client announces each request it starts writing. The
 * `dynamodb` engine's SDK uses Node's HTTP client too (to dynalite), so only a request to the upstream counts.
 */
let dispatchedAt: number | undefined;
const upstreamHost = new URL(upstreamUrl).host;
subscribe('http.client.request.start', (message) => {
  const { request } = message as { request: { getHeader(name: string): unknown } };
  if (request.getHeader('host') === upstreamHost) dispatchedAt ??= performance.now();
});

const admin = new AdminClient(host.url, adminKey);
await admin.createConnection({
  provider: 'openai',
  wire: 'openai-chat',
  baseUrl: `${upstreamUrl}/v1`,
  models: Object.values(benchModels),
  apiKey: 'bench-upstream-credential',
});
const keys: string[] = [];
for (let index = 0; index < benchMemberCount; index++) {
  // A finite allowance, so every request takes the full accounting path (reservation, self-contained check).
  const { key } = await admin.createMemberWithKey({ dailyTokens: 1_000_000_000_000 });
  keys.push(key);
}

async function drainSettlements(): Promise<number> {
  const started = performance.now();
  while (services.background.size > 0) await Promise.allSettled([...services.background]);
  return performance.now() - started;
}

/** How long each kind of store call took, from the SDK's send to its answer, over the counted requests. */
const callDurations = new Map<string, number[]>();

async function oneCountedRequest(key: string, stream: boolean): Promise<RoundTripSplit> {
  await drainSettlements();
  // The rollup fold runs on its own timer, up to a second after a settlement: folded now, it does not run inside
  // the next request and count as one of its calls.
  await services.rollupFolder.flush();
  roundTrips.clear();
  dispatchedAt = undefined;
  const response = await fetch(`${host.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: `openai/${benchModels.instant}`,
      messages: [{ role: 'user', content: 'Count my round trips.' }],
      max_tokens: 16,
      stream,
    }),
  });
  await response.text();
  if (response.status !== 200) throw new Error(`counted request answered ${response.status}`);
  await new Promise((resolve) => setImmediate(resolve));
  await drainSettlements();
  for (const call of roundTrips.calls) {
    if (call.endedAt === undefined) continue;
    const durations = callDurations.get(call.command) ?? [];
    durations.push(call.endedAt - call.startedAt);
    callDurations.set(call.command, durations);
  }
  return splitAroundDispatch(roundTrips.calls, dispatchedAt);
}

/**
 * How long the event loop was held up while `watchLoop` … `stats` ran: store work runs in this same thread, so this
 * is the time a stream chunk or a new request can wait behind it. Off otherwise: sampling every millisecond wakes the
 * process a thousand times a second (about 20 ms of CPU a second here), which would count against the gateway in
 * every CPU figure taken meanwhile.
 */
const loopDelay = monitorEventLoopDelay({ resolution: 1 });

let profiling: { stop: (file?: string) => Promise<CpuProfile> } | undefined;
let heapSampling: { stop: () => Promise<HeapProfile> } | undefined;

answerParent({
  /** Starts a CPU profile of this process (profile-request.ts): only the requests that follow are in it. */
  async startProfile(message) {
    profiling = await startProfiling(Number(message.intervalMicroseconds ?? 100));
    return {};
  },
  /** Ends the profile and writes it to `file` (a profile is megabytes: too much for a message). */
  async stopProfile(message) {
    if (!profiling) throw new Error('no profile is running');
    await profiling.stop(String(message.file));
    profiling = undefined;
    return { file: message.file };
  },
  /** Starts sampling what this process allocates (profile-request.ts --allocations). */
  async startHeapSampling() {
    heapSampling = await startHeapSampling(4096);
    return {};
  },
  /** Ends the sampling: bytes allocated meanwhile, in all and by the function that allocated them (top 40). */
  async stopHeapSampling() {
    if (!heapSampling) throw new Error('no heap sampling is running');
    const summary = summarizeHeapProfile(await heapSampling.stop());
    heapSampling = undefined;
    return { totalBytes: summary.totalBytes, byFunction: summary.byFunction.slice(0, 40) };
  },
  /** This process's CPU so far, every thread (the store's included). */
  async cpuUsage() {
    return process.cpuUsage();
  },
  /** CPU ticks (1/100 s) so far per thread of this process, by the thread's name: where the CPU that is not JS goes. */
  async threadCpu() {
    const threads: Record<string, number> = {};
    for (const task of await readdir('/proc/self/task')) {
      const stat = await readFile(`/proc/self/task/${task}/stat`, 'utf8').catch(() => '');
      // Node's threads are all called `node`: the main one is the one whose id is the process's.
      const name = task === String(process.pid) ? 'main' : `${/\((.*)\)/.exec(stat)?.[1] ?? '?'} ${task}`;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads[name] = (threads[name] ?? 0) + Number(fields[11]) + Number(fields[12]);
    }
    return threads;
  },
  async watchLoop() {
    loopDelay.reset();
    loopDelay.enable();
    return {};
  },
  async stats() {
    loopDelay.disable();
    const eventLoopDelayMs = {
      p50: loopDelay.percentile(50) / 1e6,
      p99: loopDelay.percentile(99) / 1e6,
      max: loopDelay.max / 1e6,
    };
    loopDelay.reset();
    return { storeRoundTrips: roundTrips.total(), pendingSettlements: services.background.size, eventLoopDelayMs };
  },
  async drain() {
    return { drainMs: await drainSettlements() };
  },
  async countRoundTrips(message) {
    const requests = Number(message.requests ?? 50);
    const key = keys[0] as string;
    roundTrips.detailed = true;
    try {
      const warm: Record<'plain' | 'stream', RoundTripSplit[]> = { plain: [], stream: [] };
      // The first request of each kind fills the key and connection caches; it is counted below as "cold".
      await oneCountedRequest(key, false);
      for (let index = 0; index < requests; index++) {
        warm.plain.push(await oneCountedRequest(key, false));
        warm.stream.push(await oneCountedRequest(key, true));
      }
      const durationsMs = Object.fromEntries([...callDurations].map(([command, values]) => [command, spread(values)]));
      services.caches.principals.clear();
      services.caches.connections.clear();
      const cold = await oneCountedRequest(key, false);
      return { warm, cold, durationsMs };
    } finally {
      roundTrips.detailed = false;
      roundTrips.clear();
    }
  },
});

process.on('SIGTERM', () => {
  host
    .close()
    .then(() => rm(dataDir, { recursive: true, force: true }))
    .then(() => process.exit(0));
});

tellParentReady({ url: host.url, keys } satisfies GatewayReady);
