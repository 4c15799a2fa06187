import { readFile } from 'node:fs/promises';

/** Linux's clock ticks per second for /proc CPU times (`getconf CLK_TCK`; 100 on every kernel Node supports). */
const ticksPerSecond = 100;

/**
 * CPU a process has used so far, every thread of it (user + system), in microseconds, from Linux's /proc: read the
 * same way for every side of the benchmark, whatever runs inside it.
 */
export async function processCpuMicroseconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The command name may contain spaces and parentheses: the fields that follow start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / ticksPerSecond;
}
