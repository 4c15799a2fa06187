import { Agent } from 'node:http';
import { chatBody, exchange, type Target } from './http-probe.ts';
import { benchModels } from './instant-upstream.ts';
import { processCpuMicroseconds } from './process-cpu.ts';
import { type Spread, spread } from './statistics.ts';

export interface LatencyFigures {
  /** Non-streaming chat completion, request to last byte. */
  plain: Spread;
  /** Streaming chat completion, request to first byte of the body. */
  firstByte: Spread;
  /** Streaming: each chunk from the upstream writing it to the client reading it. */
  chunkDelay: Spread;
  /**
   * CPU of the target's process (every thread, from /proc) per request while it served this phase's requests, one at
   * a time: non-streaming, and streams of the instant upstream's chunks. Absent for a target without a process.
   */
  cpuMicrosecondsPerPlain?: number;
  cpuMicrosecondsPerStream?: number;
}

export interface LatencyPlan {
  warmupRequests: number;
  rounds: number;
  plainPerRound: number;
  streamsPerRound: number;
}

/**
 * One request at a time (concurrency 1), so that each figure is the time a request spends in the path and not
 * in a queue. Targets take turns round by round, so a slow drift of the machine touches all of them alike. Where a
 * target's process id is given, its CPU is read before and after each batch of its own requests, so what it spends
 * while the others take their turn is left out.
 */
export async function measureLatency(
  targets: readonly (Target & { pid?: number | undefined })[],
  plan: LatencyPlan,
): Promise<Map<string, LatencyFigures>> {
  const agents = new Map(targets.map((target) => [target.name, new Agent({ keepAlive: true, maxSockets: 1 })]));
  const samples = new Map(
    targets.map((target) => [
      target.name,
      { plain: [] as number[], firstByte: [] as number[], chunk: [] as number[], plainCpu: 0, streamCpu: 0 },
    ]),
  );
  const send = async (target: Target, stream: boolean) => {
    const agent = agents.get(target.name) as Agent;
    const result = await exchange(agent, target, chatBody(target.model(benchModels.instant), stream));
    if (result.status !== 200) throw new Error(`${target.name} answered ${result.status}`);
    return result;
  };
  const cpu = (target: { pid?: number | undefined }) =>
    target.pid === undefined ? Promise.resolve(0) : processCpuMicroseconds(target.pid);
  try {
    for (const target of targets) {
      for (let index = 0; index < plan.warmupRequests; index++) await send(target, index % 4 === 0);
    }
    for (let round = 0; round < plan.rounds; round++) {
      for (const target of targets) {
        const bucket = samples.get(target.name) as NonNullable<ReturnType<typeof samples.get>>;
        const beforePlain = await cpu(target);
        for (let index = 0; index < plan.plainPerRound; index++) bucket.plain.push((await send(target, false)).totalMs);
        const beforeStreams = await cpu(target);
        bucket.plainCpu += beforeStreams - beforePlain;
        for (let index = 0; index < plan.streamsPerRound; index++) {
          const result = await send(target, true);
          bucket.firstByte.push(result.firstByteMs);
          bucket.chunk.push(...result.chunkDelaysMs);
        }
        bucket.streamCpu += (await cpu(target)) - beforeStreams;
      }
    }
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  return new Map(
    targets.map((target) => {
      const bucket = samples.get(target.name) as NonNullable<ReturnType<typeof samples.get>>;
      const figures: LatencyFigures = {
        plain: spread(bucket.plain),
        firstByte: spread(bucket.firstByte),
        chunkDelay: spread(bucket.chunk),
      };
      if (target.pid !== undefined) {
        figures.cpuMicrosecondsPerPlain = bucket.plainCpu / bucket.plain.length;
        figures.cpuMicrosecondsPerStream = bucket.streamCpu / bucket.firstByte.length;
      }
      return [target.name, figures];
    }),
  );
}
