import { Agent } from 'node:http';
import { chatBody, exchange, type Target } from './http-probe.ts';
import { benchModels, largeStreamBytes } from './instant-upstream.ts';
import { processMemory, sampleRss } from './process-memory.ts';

export interface LargeStreamFigures {
  bytes: number;
  seconds: number;
  megabytesPerSecond: number;
  rssBeforeMb: number;
  rssMaxMb: number;
  rssAfterMb: number;
}

/** One 200 MB stream read as fast as the client can, with the gateway's RSS sampled all along. */
export async function measureLargeStream(target: Target, pid: number): Promise<LargeStreamFigures> {
  const agent = new Agent({ keepAlive: false });
  try {
    const before = (await processMemory(pid)).rssMb;
    const sampler = sampleRss(pid, 50);
    const result = await exchange(agent, target, chatBody(target.model(benchModels.large), true), {
      discardBody: true,
    });
    const samples = await sampler.stop();
    if (result.status !== 200) throw new Error(`${target.name} answered ${result.status}`);
    if (result.bytes < largeStreamBytes) throw new Error(`${target.name} relayed only ${result.bytes} bytes`);
    return {
      bytes: result.bytes,
      seconds: result.totalMs / 1000,
      megabytesPerSecond: result.bytes / 1024 / 1024 / (result.totalMs / 1000),
      rssBeforeMb: before,
      rssMaxMb: Math.max(before, ...samples),
      rssAfterMb: (await processMemory(pid)).rssMb,
    };
  } finally {
    agent.destroy();
  }
}

export interface OpenStreamsFigures {
  streams: number;
  opened: number;
  completed: number;
  rssBeforeMb: number;
  rssOpenMb: number;
  /** What each open stream costs the gateway, on average. */
  kilobytesPerStream: number;
}

/**
 * `count` streams held open at once: each has its first chunk, and the upstream keeps it open until released.
 * The gateway's RSS is read once all of them are open, then they are released and must all complete.
 */
export async function measureOpenStreams(
  target: Target,
  pid: number,
  upstreamUrl: string,
  count: number,
  keys?: readonly string[],
): Promise<OpenStreamsFigures> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  try {
    const before = (await processMemory(pid)).rssMb;
    let opened = 0;
    let allOpen: () => void = () => {};
    const everyOneOpen = new Promise<void>((resolve) => {
      allOpen = resolve;
    });
    const body = chatBody(target.model(benchModels.hold), true);
    const exchanges = Array.from({ length: count }, (_, index) => {
      const key = keys?.[index % keys.length];
      const perStream: Target = key
        ? { ...target, headers: { ...target.headers, authorization: `Bearer ${key}` } }
        : target;
      return exchange(agent, perStream, body, {
        discardBody: true,
        onFirstByte: () => {
          opened++;
          if (opened === count) allOpen();
        },
      });
    });
    const settledExchanges = Promise.allSettled(exchanges);
    const timedOut = await Promise.race([
      everyOneOpen.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 60_000)),
    ]);
    // A moment for allocations of the last streams to land before reading memory.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const open = (await processMemory(pid)).rssMb;
    await fetch(`${upstreamUrl}/bench/release`, { method: 'POST' });
    const results = await settledExchanges;
    const completed = results.filter((result) => result.status === 'fulfilled' && result.value.status === 200).length;
    if (timedOut) throw new Error(`${target.name}: only ${opened} of ${count} streams opened within 60 s`);
    return {
      streams: count,
      opened,
      completed,
      rssBeforeMb: before,
      rssOpenMb: open,
      kilobytesPerStream: ((open - before) * 1024) / count,
    };
  } finally {
    agent.destroy();
  }
}
