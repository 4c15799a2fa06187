import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startTypeScriptChild, startUpstreamProcess } from './child-process.ts';
import { type CpuProfile, describeProfile, summarizeProfile } from './cpu-profile.ts';
import type { GatewayReady } from './gateway-process.ts';
import { chatBody, exchange, type Target } from './http-probe.ts';
import { benchModels } from './instant-upstream.ts';

/**
 * `npx tsx bench/profile-request.ts [--requests N] [--profiles FOLDER] [--cpu-only]`: what one chat completion costs
 * this gateway, plain and streamed, on the local host with warm caches (`GATEWAY_STORE` picks the engine; sqlite by default). The
 * gateway and the instant upstream run as the benchmark runs them, each in its own process; one client sends the
 * requests one after another over a keep-alive connection, as an SDK does.
 *
 * For each kind it measures twice: first the gateway's CPU per request (`process.cpuUsage` of the whole process, all
 * threads, across the phase), then, in a second phase of the same size, a CPU profile of the gateway (sampled every
 * 50 µs; the profiler's own cost is kept out of the first figure), printed per request and written to the folder.
 * CPU, not wall time, is the figure to compare before and after a change while other work shares the machine.
 */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    // Requests sent before each measured phase, so the JIT and the caches are warm when it starts.
    warmup: { type: 'string', default: '500' },
    profiles: { type: 'string' },
    // The CPU figures alone, without the profiled phases: quicker, for comparing two versions turn by turn.
    'cpu-only': { type: 'boolean', default: false },
    // Also what a request allocates, by the function that allocates it (a sampling heap profile).
    allocations: { type: 'boolean', default: false },
  },
});
const requests = Number(options.requests);
const profileFolder = resolve(options.profiles ?? (await mkdtemp(join(tmpdir(), 'gateway-profile-'))));
await mkdir(profileFolder, { recursive: true });
const logs = await mkdtemp(join(tmpdir(), 'gateway-profile-logs-'));

const upstream = await startUpstreamProcess(logs);
const gateway = await startTypeScriptChild<GatewayReady>({
  name: 'this gateway',
  // Node's own flags for the gateway process, to try one (`BENCH_NODE_OPTIONS='--max-semi-space-size=32'`).
  nodeOptions: process.env.BENCH_NODE_OPTIONS ? process.env.BENCH_NODE_OPTIONS.split(' ') : [],
  args: [join(projectRoot, 'bench', 'gateway-process.ts')],
  env: {
    ...process.env,
    BENCH_UPSTREAM_URL: upstream.ready.url,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  },
  logFile: join(logs, 'gateway.log'),
});

const target: Target = {
  name: 'this gateway',
  url: `${gateway.ready.url}/v1/chat/completions`,
  headers: { authorization: `Bearer ${gateway.ready.keys[0]}` },
  model: (name) => `openai/${name}`,
};
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

async function sendAll(body: Buffer, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const result = await exchange(agent, target, body);
    if (result.status !== 200) throw new Error(`the gateway answered ${result.status}`);
  }
  // Settlement runs after the response: it belongs to the request, so the phase waits for it.
  await gateway.child.call('drain');
}

const out = (text = '') => process.stdout.write(`${text}\n`);
out(
  `engine ${process.env.GATEWAY_STORE ?? 'sqlite'}, ${requests} requests per phase, load average ${loadavg()[0]?.toFixed(2)}`,
);
try {
  for (const stream of [false, true]) {
    const kind = stream ? 'stream' : 'plain';
    const body = chatBody(target.model(benchModels.instant), stream);
    await sendAll(body, Number(options.warmup));
    const loadAtStart = loadavg()[0]?.toFixed(2);
    const threadsBefore = await gateway.child.call<Record<string, number>>('threadCpu');
    const before = await gateway.child.call<NodeJS.CpuUsage>('cpuUsage');
    await sendAll(body, requests);
    const after = await gateway.child.call<NodeJS.CpuUsage>('cpuUsage');
    const threadsAfter = await gateway.child.call<Record<string, number>>('threadCpu');
    const cpu = (after.user - before.user + after.system - before.system) / requests;
    const userShare = (after.user - before.user) / (after.user - before.user + after.system - before.system);
    out(
      `${kind}: ${cpu.toFixed(0)} µs of CPU per request (${(100 * userShare).toFixed(0)}% user); load average ${loadAtStart} → ${loadavg()[0]?.toFixed(2)}`,
    );
    const byThread = Object.entries(threadsAfter)
      .map(([name, ticks]) => [name, ((ticks - (threadsBefore[name] ?? 0)) * 10_000) / requests] as const)
      .filter(([, microseconds]) => microseconds > 0)
      .sort((a, b) => b[1] - a[1]);
    out(`  by thread (µs per request): ${byThread.map(([name, value]) => `${name} ${value.toFixed(0)}`).join(', ')}`);
    if (options.allocations) {
      await gateway.child.call('startHeapSampling');
      await sendAll(body, requests);
      const allocated = await gateway.child.call<{ totalBytes: number; byFunction: [string, number][] }>(
        'stopHeapSampling',
      );
      out(`  allocated: ${(allocated.totalBytes / requests / 1024).toFixed(1)} KB per request; by function (KB):`);
      for (const [name, bytes] of allocated.byFunction.slice(0, 25)) {
        out(`  ${(bytes / requests / 1024).toFixed(2).padStart(8)}  ${name}`);
      }
    }
    if (options['cpu-only']) continue;
    const file = join(profileFolder, `${kind}.cpuprofile`);
    await gateway.child.call('startProfile', { intervalMicroseconds: 50 });
    await sendAll(body, requests);
    await gateway.child.call('stopProfile', { file });
    const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
    out(`profile of ${requests} more: ${file}`);
    out(describeProfile(summarizeProfile(profile), { rows: 40, requests }));
  }
} finally {
  agent.destroy();
  await gateway.child.stop();
  await upstream.child.stop();
}
out(`\nload average at end ${loadavg()[0]?.toFixed(2)}`);
process.exit(0);
