import { mkdtemp } from 'node:fs/promises';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type BenchChild, startTypeScriptChild, startUpstreamProcess } from './child-process.ts';
import type { GatewayReady } from './gateway-process.ts';
import { chatBody, exchange, type Target } from './http-probe.ts';
import { benchModels } from './instant-upstream.ts';
import { processCpuMicroseconds } from './process-cpu.ts';

/**
 * `npx tsx bench/node-http-floor.ts [--warmup N] [--rounds N] [--requests N]`: CPU per request, one at a time, of
 * this gateway beside the floor under it (bench/bare-proxy-process.ts: Node's HTTP server and client relaying to
 * the same instant upstream, and nothing else), plain and streamed. Both run as the benchmark runs its sides, each
 * in a process of its own, their CPU (every thread) read from /proc; their rounds alternate, so the machine's
 * drift falls on both. What this gateway costs above the floor is everything it does that Node's HTTP does not:
 * the key, the admission and settlement with their durable writes, routing, relaying with accounting, the log line.
 */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: {
    // Enough that the JIT is done compiling the hot path before anything is counted (docs/performance.md).
    warmup: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '4' },
    requests: { type: 'string', default: '400' },
  },
});
const warmup = Number(options.warmup);
const rounds = Number(options.rounds);
const perRound = Number(options.requests);
const logs = await mkdtemp(join(tmpdir(), 'node-http-floor-'));

const upstream = await startUpstreamProcess(logs);
const childEnv = { ...process.env, BENCH_UPSTREAM_URL: upstream.ready.url };
const floor = await startTypeScriptChild<{ url: string }>({
  name: 'bare Node proxy',
  args: [join(projectRoot, 'bench', 'bare-proxy-process.ts')],
  env: childEnv,
  logFile: join(logs, 'floor.log'),
});
const gateway = await startTypeScriptChild<GatewayReady>({
  name: 'this gateway',
  args: [join(projectRoot, 'bench', 'gateway-process.ts')],
  env: { ...childEnv, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  logFile: join(logs, 'gateway.log'),
});

interface Side {
  target: Target;
  child: BenchChild;
  /** Waits for what the side still does for requests already answered (the gateway's settlements). */
  drain: () => Promise<unknown>;
  agent: Agent;
}
const sides: Side[] = [
  {
    target: {
      name: 'bare Node proxy',
      url: `${floor.ready.url}/v1/chat/completions`,
      headers: {},
      model: (name) => name,
    },
    child: floor.child,
    drain: async () => undefined,
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
  },
  {
    target: {
      name: 'this gateway',
      url: `${gateway.ready.url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${gateway.ready.keys[0]}` },
      model: (name) => `openai/${name}`,
    },
    child: gateway.child,
    drain: () => gateway.child.call('drain'),
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
  },
];

async function send(side: Side, stream: boolean, count: number): Promise<void> {
  const body = chatBody(side.target.model(benchModels.instant), stream);
  for (let index = 0; index < count; index++) {
    const result = await exchange(side.agent, side.target, body);
    if (result.status !== 200) throw new Error(`${side.target.name} answered ${result.status}`);
  }
  await side.drain();
}

const out = (text: string) => process.stdout.write(`${text}\n`);
out(
  `${warmup} warm-up requests, then ${rounds} rounds of ${perRound} per side; load average ${loadavg()[0]?.toFixed(2)}`,
);
try {
  for (const stream of [false, true]) {
    for (const side of sides) await send(side, stream, warmup);
    const used = sides.map(() => 0);
    const loadAtStart = loadavg()[0]?.toFixed(2);
    for (let round = 0; round < rounds; round++) {
      // The side that goes first alternates, so neither is always the one measured right after the other.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order) {
        const side = sides[index] as Side;
        const before = await processCpuMicroseconds(side.child.pid);
        await send(side, stream, perRound);
        used[index] = (used[index] ?? 0) + (await processCpuMicroseconds(side.child.pid)) - before;
      }
    }
    const [floorCpu = 0, gatewayCpu = 0] = used.map((microseconds) => microseconds / (rounds * perRound));
    out(
      `${stream ? 'stream of 20 chunks' : 'plain'}: bare Node proxy ${floorCpu.toFixed(0)} µs of CPU per request, ` +
        `this gateway ${gatewayCpu.toFixed(0)} µs (${(gatewayCpu - floorCpu).toFixed(0)} above the floor); ` +
        `load average ${loadAtStart} → ${loadavg()[0]?.toFixed(2)}`,
    );
  }
} finally {
  for (const side of sides) side.agent.destroy();
  await Promise.all([gateway.child.stop(), floor.child.stop(), upstream.child.stop()]);
}
process.exit(0);
