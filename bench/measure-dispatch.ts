import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { plan } from './bench-plan.ts';
import { startTypeScriptChild, startUpstreamProcess } from './child-process.ts';
import type { GatewayReady } from './gateway-process.ts';
import { measureClientStreams } from './measure-client-streams.ts';

/**
 * `npx tsx bench/measure-dispatch.ts [--rounds N]`: the streams-as-clients-call phase of `npm run bench` alone, on
 * this gateway (`GATEWAY_STORE`, sqlite by default): `rounds` times ten openai-SDK clients streaming at once (as
 * `plan.clientStreams.concurrent`), each measurement with the load average at its start and end. Quick enough to
 * alternate two versions of the gateway turn by turn in one sitting on a shared machine; the medians of the rounds
 * are what to compare.
 */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(options.rounds);
const logs = await mkdtemp(join(tmpdir(), 'gateway-dispatch-logs-'));
const upstream = await startUpstreamProcess(logs);
const gateway = await startTypeScriptChild<GatewayReady>({
  name: 'this gateway',
  args: [join(projectRoot, 'bench', 'gateway-process.ts')],
  env: {
    ...process.env,
    BENCH_UPSTREAM_URL: upstream.ready.url,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  },
  logFile: join(logs, 'gateway.log'),
});
const out = (text: string) => process.stdout.write(`${text}\n`);
const load = () => loadavg()[0]?.toFixed(2) ?? '?';
const target = {
  name: 'this gateway',
  url: `${gateway.ready.url}/v1/chat/completions`,
  headers: { authorization: `Bearer ${gateway.ready.keys[0]}` },
  model: (name: string) => `openai/${name}`,
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const p50s: number[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    const loadAtStart = load();
    const measured = await measureClientStreams(
      target,
      upstream.ready.url,
      plan.clientStreams.concurrent,
      gateway.ready.keys,
    );
    await gateway.child.call('drain');
    p50s.push(measured.dispatchMs.p50);
    out(
      `round ${round}: 10 at once, request → upstream dispatch p50 ${measured.dispatchMs.p50.toFixed(2)} ms, p99 ${measured.dispatchMs.p99.toFixed(2)} ms; first chunk p50 ${measured.firstChunkMs.p50.toFixed(2)} ms; load average ${loadAtStart} → ${load()}`,
    );
  }
  out(`median of the rounds' p50: ${median(p50s).toFixed(2)} ms`);
} finally {
  await gateway.child.stop();
  await upstream.child.stop();
}
process.exit(0);
