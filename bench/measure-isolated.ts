import { Agent } from 'node:http';
import { chatBody, exchange, type Target } from './http-probe.ts';
import { benchModels } from './instant-upstream.ts';
import { type Spread, spread } from './statistics.ts';

/**
 * Non-streaming latency with the previous request's settlement finished before each request is sent. In steady
 * state (the latency phase) each request also waits behind the settlement writes of the one before, because
 * the embedded store works in the gateway's own thread; this isolates what the request path itself costs.
 */
export async function measureIsolatedLatency(
  target: Target,
  settle: () => Promise<unknown>,
  requests: number,
): Promise<Spread> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = chatBody(target.model(benchModels.instant), false);
  const samples: number[] = [];
  try {
    for (let index = 0; index < requests; index++) {
      await settle();
      const result = await exchange(agent, target, body);
      if (result.status !== 200) throw new Error(`${target.name} answered ${result.status}`);
      samples.push(result.totalMs);
    }
  } finally {
    agent.destroy();
  }
  return spread(samples);
}
