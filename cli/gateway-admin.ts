/**
 * Entry of `gateway-admin` (the package bin) and `npm run admin`. Kept to wiring process state into `runCli`, so
 * everything else is testable in-process.
 */
import process from 'node:process';
import { runCli } from './run-cli.ts';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  // A getter, so commands that never read standard input never open it.
  get stdin() {
    return process.stdin;
  },
  env: process.env,
  fetch: globalThis.fetch,
});
