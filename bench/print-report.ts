import { describeStreamCpu } from './measure-stream-cpu.ts';
import { describeRoundTrips, mb, ms, table } from './report.ts';
import type { BenchResults, GatewayFigures } from './run-bench.ts';
import { added, type Spread } from './statistics.ts';

export interface TargetVerdict {
  target: string;
  measured: string;
  met: boolean | undefined;
}

const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

/** The issue's targets against the figures of this run; `met` is undefined when a figure is missing. */
export function evaluateTargets(results: BenchResults): TargetVerdict[] {
  const direct = results.direct.latency;
  const gateway = results.gateway.latency;
  const peer = results.peer.latency;
  const gatewayAdded = direct && gateway ? added(gateway.plain, direct.plain) : undefined;
  const peerAdded = direct && peer ? added(peer.plain, direct.plain) : undefined;
  const chunkAdded = direct && gateway ? added(gateway.chunkDelay, direct.chunkDelay) : undefined;
  const gatewayRps = results.gateway.throughput?.requestsPerSecond;
  const peerRps = results.peer.throughput?.requestsPerSecond;
  const warm = results.gateway.storeRoundTrips;
  const built = results.bundles.filter((bundle) => bundle.error === undefined);
  const allBuilt = built.length === results.bundles.length && built.length > 0;
  const largestBundle = Math.max(...built.map((bundle) => bundle.bytes));
  const slowestInit = Math.max(...built.map((bundle) => bundle.initMs));
  return [
    {
      target: 'added latency p50 below the peer’s, with full accounting',
      measured: `${ms(gatewayAdded?.p50)} ms vs peer ${ms(peerAdded?.p50)} ms`,
      met: gatewayAdded && peerAdded ? gatewayAdded.p50 < peerAdded.p50 : undefined,
    },
    {
      target: 'added latency p99 ≤ 3 ms',
      measured: `${ms(gatewayAdded?.p99)} ms`,
      met: gatewayAdded ? gatewayAdded.p99 <= 3 : undefined,
    },
    {
      target: 'one store round trip before dispatch (warm caches)',
      measured: warm
        ? `plain ${warm.warmPlain.beforeDispatch.min}–${warm.warmPlain.beforeDispatch.max}, stream ${warm.warmStream.beforeDispatch.min}–${warm.warmStream.beforeDispatch.max}; cold ${warm.cold.beforeDispatch.length}`
        : '—',
      met: warm ? warm.warmPlain.beforeDispatch.max <= 1 && warm.warmStream.beforeDispatch.max <= 1 : undefined,
    },
    {
      target: 'added per-chunk delay p99 ≤ 1 ms',
      measured: `${ms(chunkAdded?.p99)} ms`,
      met: chunkAdded ? chunkAdded.p99 <= 1 : undefined,
    },
    {
      target: 'throughput ≥ 1.5× the peer',
      measured: gatewayRps && peerRps ? `${(gatewayRps / peerRps).toFixed(2)}×` : '—',
      met: gatewayRps && peerRps ? gatewayRps >= 1.5 * peerRps : undefined,
    },
    {
      target: 'every Lambda bundle ≤ 400 KB',
      measured: `largest ${kilobytes(largestBundle)}${allBuilt ? '' : ' (some did not build)'}`,
      met: allBuilt ? largestBundle <= 400 * 1024 : undefined,
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
    ['this gateway', results.gateway],
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
      row('chat completion p50 (ms)', (figures) => ms(figures.latency?.plain.p50)),
      row('chat completion p99 (ms)', (figures) => ms(figures.latency?.plain.p99)),
      row('  added over direct p50 (ms)', (figures) => plainAdded(figures, 'p50')),
      row('  added over direct p99 (ms)', (figures) => plainAdded(figures, 'p99')),
      row('stream first byte p50 (ms)', (figures) => ms(figures.latency?.firstByte.p50)),
      row('stream first byte p99 (ms)', (figures) => ms(figures.latency?.firstByte.p99)),
      row('  added first byte p50 (ms)', (figures) => firstByteAdded(figures, 'p50')),
      row('  added first byte p99 (ms)', (figures) => firstByteAdded(figures, 'p99')),
      row('per-chunk delay p50 (ms)', (figures) => ms(figures.latency?.chunkDelay.p50)),
      row('per-chunk delay p99 (ms)', (figures) => ms(figures.latency?.chunkDelay.p99)),
      row('  added per chunk p50 (ms)', (figures) => chunkAdded(figures, 'p50')),
      row('  added per chunk p99 (ms)', (figures) => chunkAdded(figures, 'p99')),
      row(`requests/s at ${results.plan.throughput.connections} connections`, (figures) =>
        figures.throughput ? figures.throughput.requestsPerSecond.toFixed(0) : '—',
      ),
      row('  latency p99 under load (ms)', (figures) => ms(figures.throughput?.latencyP99Ms)),
      row('  non-2xx / errors', (figures) =>
        figures.throughput ? `${figures.throughput.non2xx} / ${figures.throughput.errors}` : '—',
      ),
      row('peak RSS, latency + load phases (MB)', (figures) => mb(figures.peakRssMb)),
      row('200 MB stream: RSS before (MB)', (figures) => mb(figures.largeStream?.rssBeforeMb)),
      row('200 MB stream: RSS max during (MB)', (figures) => mb(figures.largeStream?.rssMaxMb)),
      row('200 MB stream: MB/s relayed', (figures) => mb(figures.largeStream?.megabytesPerSecond)),
      row(`${results.plan.openStreams} open streams: RSS before (MB)`, (figures) =>
        mb(figures.openStreams?.rssBeforeMb),
      ),
      row(`${results.plan.openStreams} open streams: RSS open (MB)`, (figures) => mb(figures.openStreams?.rssOpenMb)),
      row(`${results.plan.openStreams} open streams: KB per stream`, (figures) =>
        mb(figures.openStreams?.kilobytesPerStream),
      ),
      row(`${results.plan.openStreams} open streams: completed`, (figures) =>
        figures.openStreams ? `${figures.openStreams.completed}/${figures.openStreams.streams}` : '—',
      ),
    ]),
  );

  const trips = results.gateway.storeRoundTrips;
  if (trips) {
    out();
    out(
      `Store round trips of this gateway, counted on its DynamoDB client (${trips.warmPlain.requests} requests each):`,
    );
    out('  non-streaming, warm caches:');
    for (const line of describeRoundTrips(trips.warmPlain)) out(`    ${line}`);
    out('  streaming, warm caches:');
    for (const line of describeRoundTrips(trips.warmStream)) out(`    ${line}`);
    out(
      `  cold caches (first request after the key and connection caches expire): before dispatch ${trips.cold.beforeDispatch.length} (${trips.cold.beforeDispatch.join(' + ')})`,
    );
    out(`  average per request over the whole latency phase: ${trips.averagePerRequestUnderLatencyPhase.toFixed(2)}`);
    out(
      `  time per call on the embedded store (p50 / p99 ms): ${Object.entries(trips.durationsMs)
        .map(([command, figures]) => `${command} ${ms(figures.p50)} / ${ms(figures.p99)} (${figures.count})`)
        .join(', ')}`,
    );
  }
  if (results.gateway.streamCpu) {
    out();
    out('CPU of this gateway per streamed event (function entry to response stream, one event per upstream read):');
    out(describeStreamCpu(results.gateway.streamCpu));
  }
  const isolated = results.gateway.isolatedLatencyMs;
  if (isolated && direct) {
    out(
      `This gateway with the previous settlement finished before each request: p50 ${ms(isolated.p50)} ms (added ${ms(isolated.p50 - direct.plain.p50)}), p99 ${ms(isolated.p99)} ms (added ${ms(isolated.p99 - direct.plain.p99)})`,
    );
  }
  const loop = results.gateway.eventLoopDelayMs;
  if (loop) {
    out(
      `Event-loop delay of this gateway during the latency phase: p50 ${ms(loop.p50)} ms, p99 ${ms(loop.p99)} ms, max ${ms(loop.max)} ms`,
    );
  }
  if (results.gateway.settlementsPendingAfterLoad !== undefined) {
    out(
      `Settlements still running when the load run ended: ${results.gateway.settlementsPendingAfterLoad}, drained in ${ms(results.gateway.settlementDrainMs)} ms`,
    );
  }

  out();
  out('Lambda bundles (esbuild as the CDK stack bundles them; init = module evaluation in a fresh Node process):');
  out(
    table([
      ['function', 'minified', 'init median / min (ms)', 'heaviest packages'],
      ...results.bundles.map((bundle) => [
        bundle.functionId,
        bundle.error ? '—' : kilobytes(bundle.bytes),
        `${ms(bundle.initMs)} / ${ms(bundle.initMinMs)}`,
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
