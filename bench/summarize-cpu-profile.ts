import { readFile } from 'node:fs/promises';

/**
 * `tsx bench/summarize-cpu-profile.ts <file.cpuprofile>`: where a process spent its CPU, as self time per
 * package (or project folder) and per function, from a profile written by `node --cpu-prof`.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) throw new Error('usage: tsx bench/summarize-cpu-profile.ts <file.cpuprofile>');
const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicroseconds = new Map<number, number>();
for (const [index, sample] of profile.samples.entries()) {
  selfMicroseconds.set(sample, (selfMicroseconds.get(sample) ?? 0) + (profile.timeDeltas[index] ?? 0));
}

function owner(url: string): string {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (dependency) return dependency;
  const project = /\/(shared|functions|infra|bench)\/([^/]+)/.exec(url);
  if (project) return `${project[1]}/${project[2]}`;
  if (url.startsWith('node:')) return url;
  return url === '' ? '(V8: GC, idle, native)' : url;
}

function tally(key: (node: ProfileNode) => string): [string, number][] {
  const totals = new Map<string, number>();
  for (const [id, microseconds] of selfMicroseconds) {
    const node = nodes.get(id);
    if (node) totals.set(key(node), (totals.get(key(node)) ?? 0) + microseconds);
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

const total = [...selfMicroseconds.values()].reduce((sum, value) => sum + value, 0);
const line = ([name, microseconds]: [string, number]) =>
  `${(microseconds / 1000).toFixed(0).padStart(8)} ms ${((100 * microseconds) / total).toFixed(1).padStart(5)}%  ${name}`;
process.stdout.write(`${(total / 1000).toFixed(0)} ms sampled\n\nSelf time by package:\n`);
for (const entry of tally((node) => owner(node.callFrame.url)).slice(0, 20)) process.stdout.write(`${line(entry)}\n`);
process.stdout.write('\nSelf time by function:\n');
const byFunction = tally(
  ({ callFrame }) => `${callFrame.functionName || '(anonymous)'} ${owner(callFrame.url)}:${callFrame.lineNumber + 1}`,
);
for (const entry of byFunction.slice(0, 20)) process.stdout.write(`${line(entry)}\n`);
