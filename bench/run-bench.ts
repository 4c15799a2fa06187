import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plan } from './bench-plan.ts';
import type { BenchChild } from './child-process.ts';
import { startTypeScriptChild, startUpstreamProcess } from './child-process.ts';
import { describeWriteUnits, type WriteUnitFigures } from './dynamodb-write-units.ts';
import type { GatewayReady } from './gateway-process.ts';
import type { Target } from './http-probe.ts';
import { type BundleFigures, type BundleVariant, measureBundles, measureBundleVariants } from './lambda-bundles.ts';
import { type ClientStreamFigures, measureClientStreams } from './measure-client-streams.ts';
import { measureIsolatedLatency } from './measure-isolated.ts';
import { type LatencyFigures, measureLatency } from './measure-latency.ts';
import type { StreamCpuScenario } from './measure-stream-cpu.ts';
import {
  type LargeStreamFigures,
  measureLargeStream,
  measureOpenStreams,
  type OpenStreamsFigures,
} from './measure-stream-memory.ts';
import { measureThroughput, type ThroughputFigures } from './measure-throughput.ts';
import { ensurePeerInstalled, startPeerGateway } from './peer-gateway.ts';
import { evaluateTargets, printReport, type TargetVerdict } from './print-report.ts';
import { processMemory } from './process-memory.ts';
import { type RoundTripSummary, summarizeRoundTrips } from './report.ts';
import type { Spread } from './statistics.ts';
import type { RoundTripSplit } from './store-round-trips.ts';
import { formatTelemetryCost, measureTelemetryCost } from './telemetry-cost.ts';

/**
 * `npm run bench`: this gateway, a peer gateway and the direct path, side by side in one run on this machine,
 * against the same instant upstream. Prints a table and writes bench/results.json. Figures, not assertions:
 * the targets are compared and reported, never enforced.
 */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface GatewayFigures {
  latency?: LatencyFigures;
  throughput?: ThroughputFigures;
  /** Streams as clients call (measure-client-streams.ts): one client back to back, and clients at once. */
  clientStreams?: { backToBack?: ClientStreamFigures; concurrent?: ClientStreamFigures };
  /** VmHWM after the latency and throughput phases: the process's peak so far. */
  peakRssMb?: number;
  largeStream?: LargeStreamFigures;
  openStreams?: OpenStreamsFigures;
  errors: string[];
}

/** What the bench measures of each engine of this gateway. */
export type EngineFigures = GatewayFigures & {
  storeRoundTrips?: {
    warmPlain: RoundTripSummary;
    warmStream: RoundTripSummary;
    cold: RoundTripSplit;
    /** Per store call: from its start to its answer, one request at a time. */
    durationsMs: Record<string, Spread>;
    /** All round trips of the latency phase over its requests: cache refreshes included. */
    averagePerRequestUnderLatencyPhase: number;
  };
  /** Non-streaming latency with the previous request's settlement drained first (see measure-isolated.ts). */
  isolatedLatencyMs?: Spread;
  /** Event-loop delay of the gateway process while its isolated latency was measured. */
  eventLoopDelayMs?: { p50: number; p99: number; max: number };
  settlementsPendingAfterLoad?: number;
  settlementDrainMs?: number;
};

export interface BenchResults {
  machine: {
    node: string;
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    /** 1-minute load averages at the start and the end: other work on the machine shows here, and in the figures. */
    loadAverage: { atStart: number; atEnd?: number };
  };
  startedAt: string;
  plan: typeof plan;
  direct: GatewayFigures;
  /** This gateway on its default engine, SQLite: the figures the targets are judged on. */
  gateway: EngineFigures & {
    /** CPU of the gateway process per relayed stream event, by kind of stream (measure-stream-cpu.ts). */
    streamCpu?: StreamCpuScenario[];
  };
  /** The same gateway on the `dynamodb` engine (embedded dynalite), measured the same way beside it. */
  gatewayDynamodb: EngineFigures;
  peer: GatewayFigures & { available: boolean; unavailableReason?: string };
  bundles: BundleFigures[];
  bundleVariants: BundleVariant[];
  /** DynamoDB calls and write units per request, from the items the `dynamodb` engine writes. */
  dynamodbWriteUnits?: WriteUnitFigures;
  targets: TargetVerdict[];
}

const logs = await mkdtemp(join(tmpdir(), 'gateway-bench-logs-'));
const results: BenchResults = {
  machine: {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    loadAverage: { atStart: loadavg()[0] ?? Number.NaN },
  },
  startedAt: new Date().toISOString(),
  plan,
  direct: { errors: [] },
  gateway: { errors: [] },
  gatewayDynamodb: { errors: [] },
  peer: { available: false, errors: [] },
  bundles: [],
  bundleVariants: [],
  targets: [],
};
/**
 * Each step with the load average (1 minute) at its start; the next step's is the end of this one's, and the last
 * line gives the end of the last. Other work on a shared machine moves every wall-clock figure: read them with it.
 */
const step = (text: string) => process.stdout.write(`• ${text} (load average ${loadavg()[0]?.toFixed(2)})\n`);

// Bundles first, while nothing else runs on the machine.
step('bundling the Lambda functions and timing their init');
results.bundles = await measureBundles(projectRoot);
results.bundleVariants = await measureBundleVariants(projectRoot);

step('CPU per streamed event: pass-through streams and a chat → messages stream (stream-cpu.ts)');
try {
  const measured = await startTypeScriptChild<StreamCpuScenario[]>({
    name: 'stream CPU',
    args: [join(projectRoot, 'bench', 'stream-cpu.ts')],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    logFile: join(logs, 'stream-cpu.log'),
    timeoutMs: 300_000,
  });
  results.gateway.streamCpu = measured.ready;
  await measured.child.stop();
} catch (error) {
  results.gateway.errors.push(`stream CPU: ${error instanceof Error ? error.message : String(error)}`);
}

step('pricing DynamoDB writes per request from the items the dynamodb engine writes');
try {
  const output = await new Promise<string>((resolve, reject) =>
    execFile(
      join(projectRoot, 'node_modules', '.bin', 'tsx'),
      [join(projectRoot, 'bench', 'dynamodb-write-units.ts'), '--json'],
      { env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'WARN' }, maxBuffer: 10_000_000 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    ),
  );
  results.dynamodbWriteUnits = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as WriteUnitFigures;
} catch (error) {
  process.stdout.write(`  not measured: ${error instanceof Error ? error.message : String(error)}\n`);
}

step('starting the instant upstream and this gateway (local host), on SQLite and on the dynamodb engine');
const children: BenchChild[] = [];
const stopChildren = () => Promise.allSettled(children.map((child) => child.stop()));
// A failed start must not leave the processes already started behind.
process.once('exit', () => {
  for (const child of children) child.process.kill('SIGKILL');
});
const upstream = await startUpstreamProcess(logs);
children.push(upstream.child);
const startGateway = async (engine: 'sqlite' | 'dynamodb') => {
  const started = await startTypeScriptChild<GatewayReady>({
    name: `this gateway (${engine})`,
    // BENCH_CPU_PROFILE_DIR=<dir> writes a V8 CPU profile of each gateway process there when it stops; read it with
    // `tsx bench/summarize-cpu-profile.ts <file>`.
    nodeOptions: process.env.BENCH_CPU_PROFILE_DIR
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR}`]
      : [],
    args: [join(projectRoot, 'bench', 'gateway-process.ts')],
    env: {
      ...process.env,
      GATEWAY_STORE: engine,
      BENCH_UPSTREAM_URL: upstream.ready.url,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    logFile: join(logs, `gateway-${engine}.log`),
  });
  children.push(started.child);
  return started;
};
const gateway = await startGateway('sqlite');
const gatewayDynamodb = await startGateway('dynamodb');

let peer: { child: BenchChild; url: string } | undefined;
try {
  step('installing (if missing) and starting the peer gateway');
  await ensurePeerInstalled(projectRoot);
  peer = await startPeerGateway(projectRoot, join(logs, 'peer.log'));
  children.push(peer.child);
  results.peer.available = true;
} catch (error) {
  results.peer.unavailableReason = error instanceof Error ? error.message : String(error);
  process.stdout.write(`  the peer is not measured: ${results.peer.unavailableReason}\n`);
}

interface Side {
  target: Target;
  figures: GatewayFigures;
  pid?: number;
  keys?: readonly string[];
  /** This gateway's process on one engine, for the calls only it answers (round trips, drain). */
  gatewayChild?: BenchChild;
}
const gatewaySide = (
  name: string,
  started: { child: BenchChild; ready: GatewayReady },
  figures: EngineFigures,
): Side => ({
  target: {
    name,
    url: `${started.ready.url}/v1/chat/completions`,
    headers: { authorization: `Bearer ${started.ready.keys[0]}` },
    model: (model) => `openai/${model}`,
  },
  figures,
  pid: started.child.pid,
  keys: started.ready.keys,
  gatewayChild: started.child,
});
const targets: Side[] = [
  {
    target: {
      name: 'direct',
      url: `${upstream.ready.url}/v1/chat/completions`,
      headers: { authorization: 'Bearer bench-upstream-credential' },
      model: (name) => name,
    },
    figures: results.direct,
  },
  gatewaySide('this gateway', gateway, results.gateway),
  gatewaySide('this gateway (dynamodb)', gatewayDynamodb, results.gatewayDynamodb),
];
if (peer) {
  targets.push({
    target: {
      name: 'peer',
      url: `${peer.url}/v1/chat/completions`,
      headers: {
        authorization: 'Bearer bench-upstream-credential',
        'x-portkey-provider': 'openai',
        'x-portkey-custom-host': `${upstream.ready.url}/v1`,
      },
      model: (name) => name,
    },
    figures: results.peer,
    pid: peer.child.pid,
  });
}

/** Runs one phase for one target; a failure is recorded for that target and the run goes on. */
async function attempt(figures: GatewayFigures, phase: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const message = `${phase}: ${error instanceof Error ? error.message : String(error)}`;
    figures.errors.push(message);
    process.stdout.write(`  failed — ${message}\n`);
  }
}

/** The engines of this gateway, each with the figures it is measured into. */
const engines: { side: Side; child: BenchChild; figures: EngineFigures }[] = [
  { side: targets[1] as Side, child: gateway.child, figures: results.gateway },
  { side: targets[2] as Side, child: gatewayDynamodb.child, figures: results.gatewayDynamodb },
];

try {
  step("latency at concurrency 1 (non-streaming and streaming), with each side's CPU per request");
  const before = await Promise.all(engines.map(({ child }) => child.call<{ storeRoundTrips: number }>('stats')));
  const latencyTargets = targets.map(({ target, pid }) => ({ ...target, pid }));
  const latency = await measureLatency(latencyTargets, plan.latency).catch(async (error: unknown) => {
    // One target failing the sequential phase would hide the others: measure them one by one instead.
    const each = new Map<string, LatencyFigures>();
    for (const [index, { target, figures }] of targets.entries()) {
      await attempt(figures, 'latency', async () => {
        const measured = await measureLatency([latencyTargets[index] as (typeof latencyTargets)[number]], plan.latency);
        each.set(target.name, measured.get(target.name) as LatencyFigures);
      });
    }
    process.stdout.write(`  (measured one by one after: ${String(error)})\n`);
    return each;
  });
  const after = await Promise.all(engines.map(({ child }) => child.call<{ storeRoundTrips: number }>('stats')));
  for (const { target, figures } of targets) {
    const measured = latency.get(target.name);
    if (measured) figures.latency = measured;
  }
  for (const { side, child, figures } of engines) {
    step(`latency of ${side.target.name} with each settlement finished before the next request`);
    await attempt(figures, 'isolated latency', async () => {
      // The event loop is watched here only: its sampling would cost the gateway CPU in the phases that measure it.
      await child.call('watchLoop');
      figures.isolatedLatencyMs = await measureIsolatedLatency(
        side.target,
        () => child.call('drain'),
        plan.isolatedRequests,
      );
      figures.eventLoopDelayMs = (
        await child.call<{ eventLoopDelayMs: { p50: number; p99: number; max: number } }>('stats')
      ).eventLoopDelayMs;
    });
  }
  const gatewayRequests =
    plan.latency.warmupRequests + plan.latency.rounds * (plan.latency.plainPerRound + plan.latency.streamsPerRound);

  for (const side of targets) {
    const { target, figures, keys, pid, gatewayChild } = side;
    step(
      `throughput: ${target.name}, ${plan.throughput.connections} connections for ${plan.throughput.durationSeconds} s`,
    );
    await attempt(figures, 'throughput', async () => {
      figures.throughput = await measureThroughput(target, { ...plan.throughput, pid, ...(keys ? { keys } : {}) });
    });
    if (gatewayChild) {
      const engine = engines.find((entry) => entry.child === gatewayChild) as (typeof engines)[number];
      const stats = await gatewayChild.call<{ pendingSettlements: number }>('stats');
      engine.figures.settlementsPendingAfterLoad = stats.pendingSettlements;
      engine.figures.settlementDrainMs = (await gatewayChild.call<{ drainMs: number }>('drain')).drainMs;
    }
    if (pid) figures.peakRssMb = (await processMemory(pid)).peakRssMb;
  }

  for (const [mode, streamPlan] of [
    ['backToBack', plan.clientStreams.backToBack],
    ['concurrent', plan.clientStreams.concurrent],
  ] as const) {
    for (const side of targets) {
      step(
        `streams as clients call them (openai SDK): ${side.target.name}, ${streamPlan.clients} client(s) × ${streamPlan.streamsPerClient} streams back to back`,
      );
      await attempt(side.figures, `client streams (${mode})`, async () => {
        const measured = await measureClientStreams(side.target, upstream.ready.url, streamPlan, side.keys);
        side.figures.clientStreams = { ...side.figures.clientStreams, [mode]: measured };
      });
      if (side.gatewayChild) await side.gatewayChild.call('drain');
    }
  }

  for (const [index, { side, child, figures }] of engines.entries()) {
    step(
      `store round trips per request of ${side.target.name}, counted (${plan.countedRequests} plain + ${plan.countedRequests} streamed)`,
    );
    await attempt(figures, 'store round trips', async () => {
      const counted = await child.call<{
        warm: Record<'plain' | 'stream', RoundTripSplit[]>;
        cold: RoundTripSplit;
        durationsMs: Record<string, Spread>;
      }>('countRoundTrips', { requests: plan.countedRequests });
      figures.storeRoundTrips = {
        warmPlain: summarizeRoundTrips(counted.warm.plain),
        warmStream: summarizeRoundTrips(counted.warm.stream),
        cold: counted.cold,
        durationsMs: counted.durationsMs,
        averagePerRequestUnderLatencyPhase:
          ((after[index]?.storeRoundTrips ?? 0) - (before[index]?.storeRoundTrips ?? 0)) / gatewayRequests,
      };
    });
  }

  // Memory does not depend on the store engine: the default engine and the peer.
  for (const side of targets) {
    const { target, figures, pid, keys, gatewayChild } = side;
    if (!pid || side === engines[1]?.side) continue;
    step(`one 200 MB stream through ${target.name}`);
    await attempt(figures, '200 MB stream', async () => {
      figures.largeStream = await measureLargeStream(target, pid);
    });
    if (gatewayChild) await gatewayChild.call('drain');
    step(`${plan.openStreams} open streams through ${target.name}`);
    await attempt(figures, 'open streams', async () => {
      figures.openStreams = await measureOpenStreams(target, pid, upstream.ready.url, plan.openStreams, keys);
    });
    if (gatewayChild) await gatewayChild.call('drain');
  }
} finally {
  await stopChildren();
}

results.machine.loadAverage.atEnd = loadavg()[0];
process.stdout.write(`• measurements done (load average ${results.machine.loadAverage.atEnd?.toFixed(2)})\n`);
results.targets = evaluateTargets(results);
printReport(results, results.targets);
step('OpenTelemetry export on and off');
process.stdout.write(
  `${formatTelemetryCost(await measureTelemetryCost({ projectRoot, upstreamUrl: upstream.ready.url, logDirectory: logs }))}\n`,
);
if (results.dynamodbWriteUnits) process.stdout.write(`\n${describeWriteUnits(results.dynamodbWriteUnits)}`);
const resultsFile = join(projectRoot, 'bench', 'results.json');
await writeFile(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`\nWritten to ${resultsFile}; process logs in ${logs}\n`);
// Keep-alive sockets of the load generator can hold the event loop open after the children are gone.
process.exit(0);
