import { Readable } from 'node:stream';
import type { StandardInput } from '../../cli/read-credential.ts';
import { type CliIo, runCli } from '../../cli/run-cli.ts';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliRunOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stdin?: StandardInput | string;
  readonly fetch?: typeof globalThis.fetch;
}

export const testAdminKey = 'test-admin-key';

/** A fetch that fails the run loudly, for cases where nothing may reach the network. */
export const unreachableFetch: typeof globalThis.fetch = () => {
  throw new Error('this command must not send a request');
};

/** Runs the CLI in-process with captured output, the way the entry wires it to the real process. */
export async function runInProcess(argv: readonly string[], options: CliRunOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: typeof options.stdin === 'string' ? Readable.from([options.stdin]) : (options.stdin ?? Readable.from([])),
    env: options.env ?? { GATEWAY_ADMIN_KEY: testAdminKey },
    fetch: options.fetch ?? unreachableFetch,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
