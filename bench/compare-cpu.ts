import { mkdtemp } from 'node:fs/promises';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { plan } from './bench-plan.ts';
import { type BenchChild, startTypeScriptChild, startUpstreamProcess } from './child-process.ts';
import type { GatewayReady } from './gateway-process.ts';
import { chatBody, exchange, type Target } from './http-probe.ts';
import { benchModels } from './instant-upstream.ts';
import { measureClientStreams } from './measure-client-streams.ts';

/**
 * `npx tsx bench/compare-cpu.ts --other <folder> [--sessions N] [--rounds N] [--pairs N] [--dispatch N]`: the
 * gateway's CPU per request of this checkout against another (a folder holding another version of the project, with
 * `node_modules` linked), both running at once, plain and streamed: one request to each in turn (A B, B A, A B…),
 * each side's CPU (every thread) read around every round. With `--dispatch`, as many rounds of ten openai-SDK
 * clients streaming at once, this checkout, the other and the direct path taking turns.
 *
 * On a machine others share, CPU per request moves by a fifth between runs minutes apart (the load average swings
 * from 10 to 25, and with it the caches' and the scheduler's share), which hides a change of a few percent when the
 * two versions are measured one after the other (profile-request.ts). Here both gateways are up together and their
 * requests alternate one by one, so whatever the load does, it does to both alike. What is left is the difference
 * between two processes of the same code (a few percent: their heaps and compiled code differ), so each session
 * starts both afresh: the figure to read is the median of the sessions' ratios, beside their spread.
 */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: {
    other: { type: 'string' },
    sessions: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '10' },
    // Also this many rounds of ten openai-SDK clients streaming at once, taking turns: this checkout, the other, direct.
    dispatch: { type: 'string', default: '0' },
    pairs: { type: 'string', default: '200' },
  },
});
if (!options.other) {
  throw new Error(
    'usage: tsx bench/compare-cpu.ts --other <folder> [--sessions N] [--rounds N] [--pairs N] [--dispatch N]',
  );
}
const otherRoot = resolve(options.other);
const rounds = Number(options.rounds);
const pairs = Number(options.pairs);
const dispatchRounds = Number(options.dispatch);
const sessions = Number(options.sessions);
const logs = await mkdtemp(join(tmpdir(), 'gateway-compare-logs-'));
const load = () => loadavg()[0]?.toFixed(2) ?? '?';
const out = (text = '') => process.stdout.write(`${text}\n`);

const upstream = await startUpstreamProcess(logs);

interface Side {
  name: string;
  child: BenchChild;
  target: Target;
  agent: Agent;
  /** One key per member, as `npm run bench` spreads its clients over them. */
  keys: readonly string[];
}

async function startSide(name: string, root: string): Promise<Side> {
  const gateway = await startTypeScriptChild<GatewayReady>({
    name,
    args: [join(root, 'bench', 'gateway-process.ts')],
    env: {
      ...process.env,
      BENCH_UPSTREAM_URL: upstream.ready.url,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    logFile: join(logs, `${name}.log`),
  });
  return {
    name,
    child: gateway.child,
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    keys: gateway.ready.keys,
    target: {
      name,
      url: `${gateway.ready.url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${gateway.ready.keys[0]}` },
      model: (model) => `openai/${model}`,
    },
  };
}

/** A side's CPU so far, every thread, in µs. */
async function cpuOf(side: Side): Promise<number> {
  const usage = await side.child.call<NodeJS.CpuUsage>('cpuUsage');
  return usage.user + usage.system;
}

async function send(side: Side, body: Buffer): Promise<void> {
  const result = await exchange(side.agent, side.target, body);
  if (result.status !== 200) throw new Error(`${side.name} answered ${result.status}`);
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

out(`this checkout: ${projectRoot}; other: ${otherRoot}`);
out(
  `${sessions} sessions (both gateways started afresh for each) of ${rounds} rounds of ${pairs} pairs of requests, ` +
    `one to each side in turn, plain then streamed; load average ${load()}`,
);
const sessionRatios: Record<'plain' | 'stream', number[]> = { plain: [], stream: [] };
let sides: readonly [Side, Side] | undefined;
try {
  for (let session = 1; session <= sessions; session++) {
    // The same code in two processes differs by a few percent (its heap and compiled code): each session is a
    // new pair, and the sessions' spread shows that part of the noise.
    sides = [await startSide('this checkout', projectRoot), await startSide('other', otherRoot)];
    for (const kind of ['plain', 'stream'] as const) {
      const ratio = await compareCpu(sides, kind);
      sessionRatios[kind].push(ratio);
    }
    if (session === sessions && dispatchRounds > 0) await compareDispatch(sides);
    await stopSides(sides);
    sides = undefined;
  }
  for (const kind of ['plain', 'stream'] as const) {
    const ratios = sessionRatios[kind];
    out(
      `${kind}: this checkout / other, per session ${ratios.map((ratio) => ratio.toFixed(3)).join(', ')}; median ${median(ratios).toFixed(3)}`,
    );
  }
} finally {
  if (sides) await stopSides(sides);
  await upstream.child.stop();
}
process.exit(0);

/** One kind of request, alternating between the sides; prints and returns the ratio of their CPU totals. */
async function compareCpu(sides: readonly [Side, Side], kind: 'plain' | 'stream'): Promise<number> {
  const body = chatBody(`openai/${benchModels.instant}`, kind === 'stream');
  for (const side of sides) for (let index = 0; index < 500; index++) await send(side, body);
  const totals = [0, 0];
  const ratios: number[] = [];
  const loadAtStart = load();
  for (let round = 0; round < rounds; round++) {
    const before = [await cpuOf(sides[0]), await cpuOf(sides[1])];
    // One request to each side in turn, the first side alternating: both see the same load, request by request.
    for (let pair = 0; pair < pairs; pair++) {
      const first = pair % 2;
      await send(sides[first as 0 | 1], body);
      await send(sides[(1 - first) as 0 | 1], body);
    }
    // Settlement runs after the response: it belongs to the request, so each round waits for it on both sides.
    await Promise.all(sides.map((side) => side.child.call('drain')));
    const spent = [(await cpuOf(sides[0])) - (before[0] ?? 0), (await cpuOf(sides[1])) - (before[1] ?? 0)];
    totals[0] = (totals[0] ?? 0) + (spent[0] ?? 0);
    totals[1] = (totals[1] ?? 0) + (spent[1] ?? 0);
    ratios.push((spent[0] ?? 0) / (spent[1] ?? 1));
  }
  const requests = rounds * pairs;
  const sorted = [...ratios].sort((a, b) => a - b);
  const ratio = (totals[0] ?? 0) / (totals[1] ?? 1);
  out(
    `${kind}: this checkout ${((totals[0] ?? 0) / requests).toFixed(0)} µs of CPU per request, ` +
      `other ${((totals[1] ?? 0) / requests).toFixed(0)} µs (ratio ${ratio.toFixed(3)}); ` +
      `per round: median ${median(ratios).toFixed(3)}, lowest ${sorted[0]?.toFixed(3)}, highest ${sorted.at(-1)?.toFixed(3)}; ` +
      `load average ${loadAtStart} → ${load()}`,
  );
  return ratio;
}

async function stopSides(sides: readonly Side[]): Promise<void> {
  for (const side of sides) {
    side.agent.destroy();
    await side.child.stop();
  }
}

/**
 * The streams-as-clients-call phase of `npm run bench` (ten clients at once), for this checkout, the other and the
 * direct path in turn, round by round: each one's p50 request → upstream dispatch and time to the first content
 * chunk, and what each gateway adds to the direct path's time to the first chunk in the same round.
 */
async function compareDispatch(sides: readonly [Side, Side]): Promise<void> {
  const direct: Target = {
    name: 'direct',
    url: `${upstream.ready.url}/v1/chat/completions`,
    headers: { authorization: 'Bearer bench-upstream-credential' },
    model: (name) => name,
  };
  const rows: Record<string, { dispatch: number[]; firstChunk: number[]; added: number[] }> = {};
  for (let round = 1; round <= dispatchRounds; round++) {
    const loadAtStart = load();
    const figures: Record<string, { dispatch: number; firstChunk: number }> = {};
    const turns = [
      ...(round % 2 === 1 ? sides : [...sides].reverse()).map((side) => [side.target, side] as const),
      [direct, undefined] as const,
    ];
    for (const [target, side] of turns) {
      const measured = await measureClientStreams(
        target,
        upstream.ready.url,
        plan.clientStreams.concurrent,
        side?.keys,
      );
      if (side) await side.child.call('drain');
      figures[target.name] = {
        dispatch: measured.dispatchMs.p50,
        firstChunk: measured.timeToFirstChunkMs.p50,
      };
    }
    const line = Object.entries(figures).map(([name, figure]) => {
      const row = rows[name] ?? { dispatch: [], firstChunk: [], added: [] };
      rows[name] = row;
      row.dispatch.push(figure.dispatch);
      row.firstChunk.push(figure.firstChunk);
      row.added.push(figure.firstChunk - (figures.direct?.firstChunk ?? 0));
      return `${name} dispatch ${figure.dispatch.toFixed(2)} ms, first chunk ${figure.firstChunk.toFixed(2)} ms`;
    });
    out(`dispatch round ${round}: ${line.join('; ')}; load average ${loadAtStart} → ${load()}`);
  }
  for (const [name, row] of Object.entries(rows)) {
    out(
      `${name}, medians of the rounds' p50: dispatch ${median(row.dispatch).toFixed(2)} ms, first chunk ${median(row.firstChunk).toFixed(2)} ms` +
        (name === 'direct' ? '' : `, first chunk added over direct ${median(row.added).toFixed(2)} ms`),
    );
  }
}
