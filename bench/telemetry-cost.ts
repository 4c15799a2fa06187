import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { type BenchChild, startTypeScriptChild, startUpstreamProcess } from './child-process.ts';
import type { GatewayReady } from './gateway-process.ts';
import { measureThroughput } from './measure-throughput.ts';
import { percentile } from './statistics.ts';

const median = (values: readonly number[]) => percentile(values, 50);

/** What OpenTelemetry export costs this gateway: CPU per request under load with export off and on (issue 23). */
export interface TelemetryCostFigures {
  /** CPU per request of the gateway process, every thread, one figure per recorded round (after a warm-up pair). */
  offMicroseconds: number[];
  onMicroseconds: number[];
  /** Median on ÷ median off; the target is at most 1.15. */
  ratio: number;
  /** Spans and metric exports the sink received during the on rounds. */
  exports: number;
  loadAverage: { before: number; after: number };
}

/**
 * Two gateway processes on the same instant upstream, identical but for `OTEL_EXPORTER_OTLP_ENDPOINT` (protobuf, the
 * default protocol, to an OTLP sink in this process that answers 200), measured in alternating rounds so that the
 * machine's load falls on both alike.
 */
export async function measureTelemetryCost(options: {
  projectRoot: string;
  upstreamUrl: string;
  logDirectory: string;
  rounds?: number;
  connections?: number;
  durationSeconds?: number;
}): Promise<TelemetryCostFigures> {
  let exports = 0;
  const sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      exports++;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((listening) => sink.listen(0, '127.0.0.1', listening));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const children: BenchChild[] = [];
  const start = (name: string, telemetry: Record<string, string>) =>
    startTypeScriptChild<GatewayReady>({
      name,
      args: [join(options.projectRoot, 'bench', 'gateway-process.ts')],
      env: {
        ...process.env,
        ...telemetry,
        BENCH_UPSTREAM_URL: options.upstreamUrl,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      logFile: join(options.logDirectory, `${name.replace(/\W+/g, '-')}.log`),
    }).then((started) => {
      children.push(started.child);
      return started;
    });
  try {
    const off = await start('telemetry off', {});
    const on = await start('telemetry on', {
      OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
    });
    const measure = async (side: typeof off) => {
      const figures = await measureThroughput(
        {
          name: 'gateway',
          url: `${side.ready.url}/v1/chat/completions`,
          headers: { authorization: `Bearer ${side.ready.keys[0]}` },
          model: (model) => `openai/${model}`,
        },
        {
          connections: options.connections ?? 20,
          durationSeconds: options.durationSeconds ?? 5,
          warmupSeconds: 1,
          keys: side.ready.keys,
          pid: side.child.pid,
        },
      );
      return figures.cpuMicrosecondsPerRequest ?? Number.NaN;
    };
    const offMicroseconds: number[] = [];
    const onMicroseconds: number[] = [];
    const loadBefore = loadavg()[0] ?? 0;
    exports = 0;
    // A first pair unrecorded: each process's first seconds under load compile its hot paths, and measured those
    // rounds read a fifth higher on both sides and swung the ratio by ±0.1 on their own.
    await measure(off);
    await measure(on);
    for (let round = 0; round < (options.rounds ?? 5); round++) {
      // Which side goes first alternates, so neither always follows the other's export burst or idle time.
      if (round % 2 === 0) {
        offMicroseconds.push(await measure(off));
        onMicroseconds.push(await measure(on));
      } else {
        onMicroseconds.push(await measure(on));
        offMicroseconds.push(await measure(off));
      }
    }
    return {
      offMicroseconds,
      onMicroseconds,
      ratio: median(onMicroseconds) / median(offMicroseconds),
      exports,
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    };
  } finally {
    for (const child of children) child.process.kill('SIGKILL');
    await new Promise((closed) => sink.close(closed));
  }
}

/** `npx tsx bench/telemetry-cost.ts`: the telemetry figures alone, against an instant upstream of its own. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const { dirname, resolve } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const logDirectory = await mkdtemp(join(tmpdir(), 'telemetry-cost-'));
  const upstream = await startUpstreamProcess(logDirectory);
  try {
    const figures = await measureTelemetryCost({ projectRoot, upstreamUrl: upstream.ready.url, logDirectory });
    process.stdout.write(`${formatTelemetryCost(figures)}\n`);
  } finally {
    upstream.child.process.kill('SIGKILL');
  }
}

export function formatTelemetryCost(figures: TelemetryCostFigures): string {
  const list = (values: number[]) => values.map((value) => value.toFixed(0)).join(', ');
  return [
    'OpenTelemetry export (protobuf to a local OTLP sink), CPU per request under load:',
    `  off: ${list(figures.offMicroseconds)} µs (median ${median(figures.offMicroseconds).toFixed(0)})`,
    `  on:  ${list(figures.onMicroseconds)} µs (median ${median(figures.onMicroseconds).toFixed(0)})`,
    `  on ÷ off: ${figures.ratio.toFixed(3)} (target ≤ 1.15); ${figures.exports} exports received; load average ` +
      `${figures.loadAverage.before.toFixed(2)} → ${figures.loadAverage.after.toFixed(2)}`,
  ].join('\n');
}
