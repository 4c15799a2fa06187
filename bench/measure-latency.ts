import { Agent } from 'node:http';
import { chatBody, exchange, type Target } from './http-probe.ts';
import { benchModels } from './instant-upstream.ts';
import { type Spread, spread } from './statistics.ts';

export interface LatencyFigures {
  /** Non-streaming chat completion, request to last byte. */
  plain: Spread;
  /** Streaming chat completion, request to first byte of the body. */
  firstByte: Spread;
  /** Streaming: each chunk from the upstream writing it to the client reading it. */
  chunkDelay: Spread;
}

export interface LatencyPlan {
  warmupRequests: number;
  rounds: number;
  plainPerRound: number;
  streamsPerRound: number;
}

/**
 * One request at a time (concurrency 1), so that each figure is the time a request spends in the path and not
 * in a queue. Targets take turns round by round, so a slow drift of the machine touches all of them alike.
 */
export async function measureLatency(
  targets: readonly Target[],
  plan: LatencyPlan,
): Promise<Map<string, LatencyFigures>> {
  const agents = new Map(targets.map((target) => [target.name, new Agent({ keepAlive: true, maxSockets: 1 })]));
  const samples = new Map(
    targets.map((target) => [target.name, { plain: [] as number[], firstByte: [] as number[], chunk: [] as number[] }]),
  );
  const send = async (target: Target, stream: boolean) => {
    const agent = agents.get(target.name) as Agent;
    const result = await exchange(agent, target, chatBody(target.model(benchModels.instant), stream));
    if (result.status !== 200) throw new Error(`${target.name} answered ${result.status}`);
    return result;
  };
  try {
    for (const target of targets) {
      for (let index = 0; index < plan.warmupRequests; index++) await send(target, index % 4 === 0);
    }
    for (let round = 0; round < plan.rounds; round++) {
      for (const target of targets) {
        const bucket = samples.get(target.name) as { plain: number[]; firstByte: number[]; chunk: number[] };
        for (let index = 0; index < plan.plainPerRound; index++) bucket.plain.push((await send(target, false)).totalMs);
        for (let index = 0; index < plan.streamsPerRound; index++) {
          const result = await send(target, true);
          bucket.firstByte.push(result.firstByteMs);
          bucket.chunk.push(...result.chunkDelaysMs);
        }
      }
    }
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  return new Map(
    [...samples].map(([name, bucket]) => [
      name,
      { plain: spread(bucket.plain), firstByte: spread(bucket.firstByte), chunkDelay: spread(bucket.chunk) },
    ]),
  );
}
