import { lambdaBundleBudgetBytes } from '../infra/lambda-bundle-build.ts';
import type { ClientStreamFigures } from './measure-client-streams.ts';
import { describeStreamCpu } from './measure-stream-cpu.ts';
import { describeRoundTrips, mb, ms, table } from './report.ts';
import type { BenchResults, EngineFigures, GatewayFigures } from './run-bench.ts';
import { added, type Spread } from './statistics.ts';

export interface TargetVerdict {
  target: string;
  measured: string;
  met: boolean | undefined;
}

const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const micro = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(0));
const both = (left: boolean | undefined, right: boolean | undefined) =>
  left === undefined || right === undefined ? undefined : left && right;

/** Issue 13's targets for streams, judged at the client: request → upstream dispatch, first chunk after the upstream wrote it. */
const streamTargets = { dispatchP50Ms: 2, firstChunkP50Ms: 3 };

/**
 * The targets against the figures of this run, for the default engine (SQLite); `met` is undefined when a figure is
 * missing. Issue 13: CPU per request at most the peer's, throughput at least 1.5× the peer's, added latency p50 at
 * most and p99 below the peer's, and the stream targets at the client, back to back and ten at once. The earlier
 * targets (bundles, init, one store call before dispatch, per-chunk delay) are kept beside them.
 */
export function evaluateTargets(results: BenchResults): TargetVerdict[] {
  const direct = results.direct.latency;
  const gateway = results.gateway.latency;
  const peer = results.peer.latency;
  const gatewayAdded = direct && gateway ? added(gateway.plain, direct.plain) : undefined;
  const peerAdded = direct && peer ? added(peer.plain, direct.plain) : undefined;
  const chunkAdded = direct && gateway ? added(gateway.chunkDelay, direct.chunkDelay) : undefined;
  const gatewayRps = results.gateway.throughput?.requestsPerSecond;
  const peerRps = results.peer.throughput?.requestsPerSecond;
  const gatewayCpu = results.gateway.throughput?.cpuMicrosecondsPerRequest;
  const peerCpu = results.peer.throughput?.cpuMicrosecondsPerRequest;
  const gatewaySequentialCpu = gateway?.cpuMicrosecondsPerPlain;
  const peerSequentialCpu = peer?.cpuMicrosecondsPerPlain;
  const warm = results.gateway.storeRoundTrips;
  const built = results.bundles.filter((bundle) => bundle.error === undefined);
  const allBuilt = built.length === results.bundles.length && built.length > 0;
  const largestBundle = Math.max(...built.map((bundle) => bundle.bytes));
  const slowestInit = Math.max(...built.map((bundle) => bundle.initMs));
  const streams = (mode: 'backToBack' | 'concurrent', label: string): TargetVerdict[] => {
    const figures = results.gateway.clientStreams?.[mode];
    return [
      {
        target: `stream, ${label}: client's request → upstream dispatch p50 ≤ ${streamTargets.dispatchP50Ms} ms`,
        measured: figures ? `${ms(figures.dispatchMs.p50)} ms (p99 ${ms(figures.dispatchMs.p99)})` : '—',
        met: figures ? figures.dispatchMs.p50 <= streamTargets.dispatchP50Ms : undefined,
      },
      {
        target: `stream, ${label}: first chunk at the client ≤ ${streamTargets.firstChunkP50Ms} ms after the upstream sent it (p50)`,
        measured: figures ? `${ms(figures.firstChunkMs.p50)} ms (p99 ${ms(figures.firstChunkMs.p99)})` : '—',
        met: figures ? figures.firstChunkMs.p50 <= streamTargets.firstChunkP50Ms : undefined,
      },
    ];
  };
  return [
    {
      target: 'CPU per request ≤ the peer’s, under load (all of it: authentication, admission, settlement)',
      measured: `${micro(gatewayCpu)} µs vs peer ${micro(peerCpu)} µs`,
      met: gatewayCpu !== undefined && peerCpu !== undefined ? gatewayCpu <= peerCpu : undefined,
    },
    {
      target: 'CPU per request ≤ the peer’s, one request at a time',
      measured: `${micro(gatewaySequentialCpu)} µs vs peer ${micro(peerSequentialCpu)} µs`,
      met:
        gatewaySequentialCpu !== undefined && peerSequentialCpu !== undefined
          ? gatewaySequentialCpu <= peerSequentialCpu
          : undefined,
    },
    {
      target: 'throughput ≥ 1.5× the peer',
      measured:
        gatewayRps && peerRps
          ? `${(gatewayRps / peerRps).toFixed(2)}× (${gatewayRps.toFixed(0)} vs ${peerRps.toFixed(0)} requests/s)`
          : '—',
      met: gatewayRps && peerRps ? gatewayRps >= 1.5 * peerRps : undefined,
    },
    {
      target: 'added latency p50 ≤ the peer’s and p99 below the peer’s',
      measured:
        gatewayAdded && peerAdded
          ? `p50 ${ms(gatewayAdded.p50)} vs ${ms(peerAdded.p50)} ms, p99 ${ms(gatewayAdded.p99)} vs ${ms(peerAdded.p99)} ms`
          : '—',
      met:
        gatewayAdded && peerAdded
          ? both(gatewayAdded.p50 <= peerAdded.p50, gatewayAdded.p99 < peerAdded.p99)
          : undefined,
    },
    ...streams('backToBack', 'back to back'),
    ...streams('concurrent', `${results.plan.clientStreams.concurrent.clients} at once`),
    {
      target: 'one store round trip before dispatch (warm caches)',
      measured: warm
        ? `plain ${warm.warmPlain.beforeDispatch.min}–${warm.warmPlain.beforeDispatch.max}, stream ${warm.warmStream.beforeDispatch.min}–${warm.warmStream.beforeDispatch.max}; cold ${warm.cold.beforeDispatch.length}`
        : '—',
      met: warm ? warm.warmPlain.beforeDispatch.max <= 1 && warm.warmStream.beforeDispatch.max <= 1 : undefined,
    },
    {
      target: 'added latency p99 ≤ 3 ms (an earlier issue’s)',
      measured: `${ms(gatewayAdded?.p99)} ms`,
      met: gatewayAdded ? gatewayAdded.p99 <= 3 : undefined,
    },
    {
      target: 'added per-chunk delay p99 ≤ 1 ms (an earlier issue’s)',
      measured: `${ms(chunkAdded?.p99)} ms`,
      met: chunkAdded ? chunkAdded.p99 <= 1 : undefined,
    },
    {
      target: "every Lambda bundle ≤ 400,000 bytes (the test's budget)",
      measured: `largest ${kilobytes(largestBundle)}${allBuilt ? '' : ' (some did not build)'}`,
      met: allBuilt ? largestBundle <= lambdaBundleBudgetBytes : undefined,
    },
    {
      target: 'every module init ≤ 100 ms',
      measured: `slowest ${ms(slowestInit)} ms${allBuilt ? '' : ' (some did not build)'}`,
      met: allBuilt ? slowestInit <= 100 : undefined,
    },
  ];
}

export function printReport(results: BenchResults, verdicts: readonly TargetVerdict[]): void {
  const out = (text = '') => process.stdout.write(`${text}\n`);
  const sides: [string, GatewayFigures][] = [
    ['direct', results.direct],
    ['gateway (sqlite)', results.gateway],
    ['gateway (dynamodb)', results.gatewayDynamodb],
    ['peer (Portkey)', results.peer],
  ];
  const direct = results.direct.latency;
  const row = (label: string, pick: (figures: GatewayFigures) => string) => [
    label,
    ...sides.map(([, figures]) => pick(figures)),
  ];
  const addedOver =
    (pick: (latency: NonNullable<GatewayFigures['latency']>) => Spread) =>
    (figures: GatewayFigures, percentile: 'p50' | 'p99') => {
      if (!figures.latency || !direct || figures === results.direct) return '—';
      return ms(added(pick(figures.latency), pick(direct))[percentile]);
    };
  const plainAdded = addedOver((latency) => latency.plain);
  const firstByteAdded = addedOver((latency) => latency.firstByte);
  const chunkAdded = addedOver((latency) => latency.chunkDelay);
  const streamRow = (
    mode: 'backToBack' | 'concurrent',
    label: string,
    pick: (figures: ClientStreamFigures) => Spread,
    percentile: 'p50' | 'p99',
  ) => row(label, (figures) => ms(figures.clientStreams?.[mode] && pick(figures.clientStreams[mode])[percentile]));
  const streamRows = (mode: 'backToBack' | 'concurrent', title: string) => [
    [title, '', '', '', ''],
    streamRow(mode, '  request → upstream dispatch p50 (ms)', (figures) => figures.dispatchMs, 'p50'),
    streamRow(mode, '  request → upstream dispatch p99 (ms)', (figures) => figures.dispatchMs, 'p99'),
    streamRow(mode, '  SDK call → upstream dispatch p50 (ms)', (figures) => figures.callToDispatchMs, 'p50'),
    streamRow(mode, '  first chunk after the upstream sent it p50 (ms)', (figures) => figures.firstChunkMs, 'p50'),
    streamRow(mode, '  first chunk after the upstream sent it p99 (ms)', (figures) => figures.firstChunkMs, 'p99'),
    streamRow(mode, '  every chunk after the upstream sent it p50 (ms)', (figures) => figures.chunkMs, 'p50'),
    streamRow(mode, '  every chunk after the upstream sent it p99 (ms)', (figures) => figures.chunkMs, 'p99'),
    streamRow(mode, '  SDK call → first chunk p50 (ms)', (figures) => figures.timeToFirstChunkMs, 'p50'),
  ];
  const { backToBack, concurrent } = results.plan.clientStreams;

  out();
  out(
    `Machine: ${results.machine.cpus} × ${results.machine.cpuModel}, ${results.machine.memoryGb} GB, Node ${results.machine.node}; ` +
      `load average ${results.machine.loadAverage.atStart.toFixed(1)} at start, ${results.machine.loadAverage.atEnd?.toFixed(1) ?? '—'} at end`,
  );
  if (!results.peer.available) out(`Peer not measured: ${results.peer.unavailableReason}`);
  out();
  out(
    table([
      ['', ...sides.map(([name]) => name)],
      ['one request at a time', '', '', '', ''],
      row('  chat completion p50 (ms)', (figures) => ms(figures.latency?.plain.p50)),
      row('  chat completion p99 (ms)', (figures) => ms(figures.latency?.plain.p99)),
      row('    added over direct p50 (ms)', (figures) => plainAdded(figures, 'p50')),
      row('    added over direct p99 (ms)', (figures) => plainAdded(figures, 'p99')),
      row('  CPU per request (µs)', (figures) => micro(figures.latency?.cpuMicrosecondsPerPlain)),
      row('  stream first byte p50 (ms)', (figures) => ms(figures.latency?.firstByte.p50)),
      row('    added first byte p50 (ms)', (figures) => firstByteAdded(figures, 'p50')),
      row('    added first byte p99 (ms)', (figures) => firstByteAdded(figures, 'p99')),
      row('  per-chunk delay p50 (ms)', (figures) => ms(figures.latency?.chunkDelay.p50)),
      row('  per-chunk delay p99 (ms)', (figures) => ms(figures.latency?.chunkDelay.p99)),
      row('    added per chunk p50 (ms)', (figures) => chunkAdded(figures, 'p50')),
      row('    added per chunk p99 (ms)', (figures) => chunkAdded(figures, 'p99')),
      row('  CPU per stream of 20 chunks (µs)', (figures) => micro(figures.latency?.cpuMicrosecondsPerStream)),
      [`under load, ${results.plan.throughput.connections} connections`, '', '', '', ''],
      row('  requests/s', (figures) => (figures.throughput ? figures.throughput.requestsPerSecond.toFixed(0) : '—')),
      row('  CPU per request (µs)', (figures) => micro(figures.throughput?.cpuMicrosecondsPerRequest)),
      row('  latency p50 / p99 (ms)', (figures) =>
        figures.throughput ? `${figures.throughput.latencyP50Ms} / ${figures.throughput.latencyP99Ms}` : '—',
      ),
      row('  non-2xx / errors', (figures) =>
        figures.throughput ? `${figures.throughput.non2xx} / ${figures.throughput.errors}` : '—',
      ),
      ...streamRows('backToBack', `streams as clients call, ${backToBack.clients} client back to back (openai SDK)`),
      ...streamRows('concurrent', `streams as clients call, ${concurrent.clients} clients at once (openai SDK)`),
      ['memory', '', '', '', ''],
      row('  peak RSS, latency + load phases (MB)', (figures) => mb(figures.peakRssMb)),
      row('  200 MB stream: RSS before / max (MB)', (figures) =>
        figures.largeStream ? `${mb(figures.largeStream.rssBeforeMb)} / ${mb(figures.largeStream.rssMaxMb)}` : '—',
      ),
      row('  200 MB stream: MB/s relayed', (figures) => mb(figures.largeStream?.megabytesPerSecond)),
      row(`  ${results.plan.openStreams} open streams: KB per stream`, (figures) =>
        mb(figures.openStreams?.kilobytesPerStream),
      ),
      row(`  ${results.plan.openStreams} open streams: completed`, (figures) =>
        figures.openStreams ? `${figures.openStreams.completed}/${figures.openStreams.streams}` : '—',
      ),
    ]),
  );
  out(
    '(request → upstream dispatch: from fetch writing the request to the upstream receiving it; SDK call: from the ' +
      'program calling the SDK. CPU: the whole process, every thread, from /proc.)',
  );

  for (const [name, figures] of [
    ['gateway (sqlite)', results.gateway],
    ['gateway (dynamodb)', results.gatewayDynamodb],
  ] as [string, EngineFigures][]) {
    out();
    describeEngine(out, name, figures, direct);
  }
  if (results.gateway.streamCpu) {
    out();
    out('CPU of this gateway per streamed event (function entry to response stream, one event per upstream read):');
    out(describeStreamCpu(results.gateway.streamCpu));
  }

  out();
  out('Lambda bundles (esbuild as the CDK stack bundles them; init = module evaluation in a fresh Node process):');
  out(
    table([
      ['function', 'init loads', 'init median / min (ms)', 'largest lazy part', 'heaviest packages'],
      ...results.bundles.map((bundle) => [
        bundle.functionId,
        bundle.error ? '—' : kilobytes(bundle.bytes),
        `${ms(bundle.initMs)} / ${ms(bundle.initMinMs)}`,
        largestLazyPart(bundle.lazyModules ?? []),
        bundle.error
          ? `did not build: ${bundle.error.slice(0, 100)}`
          : bundle.heaviestInputs.map((input) => `${input.name} ${kilobytes(input.bytes)}`).join(', '),
      ]),
    ]),
  );
  out();
  out('chat-completions bundle, what-if variants:');
  out(
    table([
      ['variant', 'minified', 'init (ms)'],
      ...results.bundleVariants.map((variant) => [variant.variant, kilobytes(variant.bytes), ms(variant.initMs)]),
    ]),
  );

  out();
  out('Targets (the default engine, SQLite, against the peer):');
  out(
    table([
      ['target', 'measured', 'met'],
      ...verdicts.map((verdict) => [
        verdict.target,
        verdict.measured,
        verdict.met === undefined ? 'n/a' : verdict.met ? 'yes' : 'NO',
      ]),
    ]),
  );
  for (const [name, figures] of sides) {
    for (const error of figures.errors) out(`${name} failed: ${error}`);
  }
}

/** Store calls, isolated latency, event-loop delay and settlements of one engine of this gateway. */
function describeEngine(
  out: (text?: string) => void,
  name: string,
  figures: EngineFigures,
  direct: GatewayFigures['latency'],
): void {
  const trips = figures.storeRoundTrips;
  if (trips) {
    out(`Store calls of ${name} (${trips.warmPlain.requests} requests each):`);
    out('  non-streaming, warm caches:');
    for (const line of describeRoundTrips(trips.warmPlain)) out(`    ${line}`);
    out('  streaming, warm caches:');
    for (const line of describeRoundTrips(trips.warmStream)) out(`    ${line}`);
    out(
      `  cold caches (first request after the key and connection caches expire): before dispatch ${trips.cold.beforeDispatch.length} (${trips.cold.beforeDispatch.join(' + ')})`,
    );
    out(`  average per request over the whole latency phase: ${trips.averagePerRequestUnderLatencyPhase.toFixed(2)}`);
    out(
      `  time per call (p50 / p99 ms): ${Object.entries(trips.durationsMs)
        .map(([command, spread]) => `${command} ${ms(spread.p50)} / ${ms(spread.p99)} (${spread.count})`)
        .join(', ')}`,
    );
  }
  const isolated = figures.isolatedLatencyMs;
  if (isolated && direct) {
    out(
      `  with the previous settlement finished before each request: p50 ${ms(isolated.p50)} ms (added ${ms(isolated.p50 - direct.plain.p50)}), p99 ${ms(isolated.p99)} ms (added ${ms(isolated.p99 - direct.plain.p99)})`,
    );
  }
  const loop = figures.eventLoopDelayMs;
  if (loop) {
    out(
      `  event-loop delay while it was measured so: p50 ${ms(loop.p50)} ms, p99 ${ms(loop.p99)} ms, max ${ms(loop.max)} ms`,
    );
  }
  if (figures.settlementsPendingAfterLoad !== undefined) {
    out(
      `  settlements still running when the load run ended: ${figures.settlementsPendingAfterLoad}, drained in ${ms(figures.settlementDrainMs)} ms`,
    );
  }
}

/** The lazily loaded part of a function that adds most when first loaded (infra/lambda-bundle-build.ts). */
function largestLazyPart(parts: readonly { file: string; bytes: number }[]): string {
  const largest = [...parts].sort((a, b) => b.bytes - a.bytes)[0];
  if (!largest) return '—';
  const name = largest.file.replace(/^chunks\//, '').replace(/-[A-Z0-9]{8}\.mjs$/, '');
  return `${name} ${kilobytes(largest.bytes)}`;
}
