import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

/**
 * The gateway as `npm start` runs it (infra/local/start.ts), in a process of its own: for what only a separate
 * process shows (its memory, a SIGKILL, a second process on the same data folder).
 */
export interface GatewayChild {
  url: string;
  pid: number;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (or signal name) once it has exited. */
  exited: Promise<number | string | null>;
  kill(signal: NodeJS.Signals): void;
}

export interface GatewayChildOptions {
  dataDir: string;
  adminKey: string;
  environment?: Record<string, string>;
}

/** Starts the child and resolves once it listens; rejects with its output if it exits or does not start. */
export async function startGatewayChild(options: GatewayChildOptions): Promise<GatewayChild> {
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(
    process.execPath,
    ['--import', 'tsx', 'infra/local/start.ts'],
    {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        GATEWAY_DATA_DIR: options.dataDir,
        GATEWAY_ADMIN_KEY: options.adminKey,
        ...options.environment,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = output.match(/listening on (http:\/\/\S+)/);
      if (match?.[1]) {
        child.stdout.off('data', onData);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    exited.then((code) => reject(new Error(`the gateway exited (${code}) before it listened:\n${output}`)));
  });
  return {
    url,
    pid: child.pid as number,
    output: () => output,
    exited,
    kill: (signal) => child.kill(signal),
  };
}
