import { readFile } from 'node:fs/promises';

/** Resident memory of a process from Linux's /proc, in MB: now (VmRSS) and its peak so far (VmHWM). */
export async function processMemory(pid: number): Promise<{ rssMb: number; peakRssMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kilobytes('VmRSS') / 1024, peakRssMb: kilobytes('VmHWM') / 1024 };
}

/** Samples a process's RSS until stopped; the series shows whether memory stays flat. */
export function sampleRss(pid: number, intervalMs = 100): { stop(): Promise<number[]> } {
  const samples: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      samples.push((await processMemory(pid)).rssMb);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return samples;
    },
  };
}
