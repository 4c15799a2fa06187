import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/**
 * Reading V8 CPU profiles (`node --cpu-prof`, or `profilePhase` below): where a process spent its CPU, as self
 * time per package and per function, and as inclusive time per function (the function and everything it called,
 * counted once per sample however deep it recurses). Idle time is left out of every figure; with `requests`, each
 * figure is also given per request.
 */
export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export interface ProfileSummary {
  /** CPU sampled, idle excluded, in microseconds. */
  busyMicroseconds: number;
  selfByPackage: [string, number][];
  selfByFunction: [string, number][];
  inclusiveByFunction: [string, number][];
}

const idleFunctions = new Set(['(idle)', '(program)']);

/** The package (or project folder, or Node module) a frame's code belongs to. */
export function ownerOf(url: string): string {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (dependency) return dependency;
  const project = /\/(shared|functions|infra|bench)\/(.+?)(?:\.ts)?$/.exec(url);
  if (project) return `${project[1]}/${project[2]}`;
  if (url.startsWith('node:')) return url;
  return url === '' ? '(native, GC)' : url;
}

function functionKey({ functionName, url, lineNumber }: CallFrame): string {
  return `${functionName || '(anonymous)'} ${ownerOf(url)}:${lineNumber + 1}`;
}

export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const selfTime = new Map<number, number>();
  for (const [index, sample] of profile.samples.entries()) {
    selfTime.set(sample, (selfTime.get(sample) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const selfByPackage = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const inclusiveByFunction = new Map<string, number>();
  let busy = 0;
  for (const [id, microseconds] of selfTime) {
    const node = nodes.get(id);
    if (!node || idleFunctions.has(node.callFrame.functionName)) continue;
    busy += microseconds;
    const owner = ownerOf(node.callFrame.url);
    selfByPackage.set(owner, (selfByPackage.get(owner) ?? 0) + microseconds);
    const key = functionKey(node.callFrame);
    selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + microseconds);
    // Every function on the stack, once each (a recursive one is not counted twice).
    const onStack = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
      const frame = nodes.get(current)?.callFrame;
      if (frame && frame.functionName !== '(root)') onStack.add(functionKey(frame));
    }
    for (const entry of onStack) inclusiveByFunction.set(entry, (inclusiveByFunction.get(entry) ?? 0) + microseconds);
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return {
    busyMicroseconds: busy,
    selfByPackage: sorted(selfByPackage),
    selfByFunction: sorted(selfByFunction),
    inclusiveByFunction: sorted(inclusiveByFunction),
  };
}

/** The summary as text: the top `rows` of each list, in µs per request when `requests` is given. */
export function describeProfile(summary: ProfileSummary, options: { rows: number; requests?: number }): string {
  const divisor = options.requests ?? 1;
  const unit = options.requests ? 'µs/request' : 'ms';
  const value = (microseconds: number) =>
    options.requests ? (microseconds / divisor).toFixed(1) : (microseconds / 1000).toFixed(0);
  const line = ([name, microseconds]: [string, number]) =>
    `${value(microseconds).padStart(9)} ${((100 * microseconds) / summary.busyMicroseconds).toFixed(1).padStart(5)}%  ${name}`;
  const section = (title: string, entries: [string, number][]) =>
    [`${title} (${unit}, % of busy):`, ...entries.slice(0, options.rows).map(line)].join('\n');
  return [
    `busy (idle excluded): ${value(summary.busyMicroseconds)} ${unit}`,
    section('Self time by package', summary.selfByPackage),
    section('Self time by function', summary.selfByFunction),
    section('Inclusive time by function', summary.inclusiveByFunction),
  ].join('\n\n');
}

/**
 * Starts the inspector's sampling profiler in this process at `intervalMicroseconds`; `stop` ends it and returns the
 * profile, writing it to `file` when given (it opens in Chrome's DevTools). Only the phase between the two is in
 * the profile, not the start-up before it.
 */
export async function startProfiling(
  intervalMicroseconds: number,
): Promise<{ stop: (file?: string) => Promise<CpuProfile> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalMicroseconds });
  await session.post('Profiler.start');
  return {
    async stop(file) {
      try {
        const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
        if (file) await writeFile(file, JSON.stringify(profile));
        return profile;
      } finally {
        session.disconnect();
      }
    },
  };
}

/** A V8 sampling heap profile (`HeapProfiler.stopSampling`): what the code allocated, by where it allocated it. */
export interface HeapProfile {
  head: HeapProfileNode;
}

interface HeapProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapProfileNode[];
}

/** Bytes allocated per function (self), largest first, from a sampling heap profile. */
export function summarizeHeapProfile(profile: HeapProfile): { totalBytes: number; byFunction: [string, number][] } {
  const byFunction = new Map<string, number>();
  let totalBytes = 0;
  const pending = [profile.head];
  while (pending.length > 0) {
    const node = pending.pop() as HeapProfileNode;
    if (node.selfSize > 0) {
      totalBytes += node.selfSize;
      const key = functionKey(node.callFrame);
      byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
    }
    pending.push(...node.children);
  }
  return { totalBytes, byFunction: [...byFunction].sort((a, b) => b[1] - a[1]) };
}

/**
 * Starts the inspector's sampling heap profiler (one sample every `intervalBytes` allocated, on average);
 * `stop` returns what was allocated meanwhile, collected or not, by the function that allocated it.
 */
export async function startHeapSampling(intervalBytes: number): Promise<{ stop: () => Promise<HeapProfile> }> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  // Objects the collector already freed stay in: the figure is allocation, which is what the collector pays for.
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return {
    async stop() {
      try {
        const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: HeapProfile };
        return profile;
      } finally {
        session.disconnect();
      }
    },
  };
}
