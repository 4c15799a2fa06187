import autocannon from 'autocannon';
import { chatBody, type Target } from './http-probe.ts';
import { benchModels } from './instant-upstream.ts';
import { processCpuMicroseconds } from './process-cpu.ts';

export interface ThroughputFigures {
  connections: number;
  durationSeconds: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  /** CPU of the target's process (every thread, from /proc) per request answered during the measured run. */
  cpuMicrosecondsPerRequest?: number;
}

/**
 * Non-streaming chat completions at a fixed number of open connections with autocannon, after a short
 * warm-up run that is thrown away. `keys`, when given, are spread over the connections (one key per member), as
 * a team's traffic would be. With the target's process id, its CPU per request under this load is read too.
 */
export async function measureThroughput(
  target: Target,
  options: {
    connections: number;
    durationSeconds: number;
    warmupSeconds: number;
    keys?: readonly string[];
    pid?: number | undefined;
  },
): Promise<ThroughputFigures> {
  let nextKey = 0;
  const run = (duration: number) =>
    autocannon({
      url: target.url,
      method: 'POST',
      body: chatBody(target.model(benchModels.instant), false),
      headers: { ...target.headers, 'content-type': 'application/json' },
      connections: options.connections,
      duration,
      timeout: 30,
      setupClient: options.keys
        ? (client) => {
            const key = options.keys?.[nextKey++ % (options.keys?.length ?? 1)];
            client.setHeaders({
              ...target.headers,
              'content-type': 'application/json',
              authorization: `Bearer ${key}`,
            });
          }
        : undefined,
    });
  await run(options.warmupSeconds);
  const { pid } = options;
  const cpuBefore = pid === undefined ? 0 : await processCpuMicroseconds(pid);
  const result = await run(options.durationSeconds);
  const cpuAfter = pid === undefined ? 0 : await processCpuMicroseconds(pid);
  return {
    connections: options.connections,
    durationSeconds: result.duration,
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    ...(pid === undefined ? {} : { cpuMicrosecondsPerRequest: (cpuAfter - cpuBefore) / result.requests.total }),
  };
}
