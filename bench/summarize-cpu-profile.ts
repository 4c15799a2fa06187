import { readFile } from 'node:fs/promises';
import { type CpuProfile, describeProfile, summarizeProfile } from './cpu-profile.ts';

/**
 * `tsx bench/summarize-cpu-profile.ts <file.cpuprofile> [requests]`: where a process spent its CPU, as self time per
 * package (or project file) and per function and inclusive time per function, from a profile written by
 * `node --cpu-prof` or `bench/profile-request.ts`; per request when the number of requests is given.
 */
const [file, requests] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/summarize-cpu-profile.ts <file.cpuprofile> [requests]');
const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
process.stdout.write(
  `${describeProfile(summarizeProfile(profile), { rows: 30, ...(requests ? { requests: Number(requests) } : {}) })}\n`,
);
