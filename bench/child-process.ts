import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every side of the benchmark (upstream, this gateway, the peer) runs in a process of its own, so that each
 * one's memory can be read from /proc and none of them shares an event loop with the load generator.
 */
export interface BenchChild {
  readonly name: string;
  readonly process: ChildProcess;
  readonly pid: number;
  /** Asks a child started with `startTypeScriptChild` to do something and answer (IPC). */
  call<Result>(type: string, payload?: Record<string, unknown>): Promise<Result>;
  stop(): Promise<void>;
}

interface ChildAnswer {
  id?: number;
  type?: string;
  result?: unknown;
  error?: string;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Where the child's stdout and stderr go (they are kept for a look after a failure). */
  logFile: string;
  timeoutMs?: number;
}

/** Starts a TypeScript entry with IPC and waits for its `{ type: 'ready' }` message. */
export async function startTypeScriptChild<Ready>(
  options: Omit<StartOptions, 'command'> & { nodeOptions?: string[] },
): Promise<{ child: BenchChild; ready: Ready }> {
  const log = openLog(options.logFile);
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), '--import', 'tsx', ...options.args], {
    env: options.env,
    stdio: ['ignore', log, log, 'ipc'],
  });
  closeSync(log);
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  const ready = new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${options.name} did not start within ${options.timeoutMs ?? 60_000} ms`)),
      options.timeoutMs ?? 60_000,
    );
    child.on('message', (message: ChildAnswer) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message.result as Ready);
        return;
      }
      const waiter = message.id === undefined ? undefined : pending.get(message.id);
      if (!waiter || message.id === undefined) return;
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${options.name}: ${message.error}`));
      else waiter.resolve(message.result);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const error = new Error(`${options.name} exited (${code ?? signal}); see ${options.logFile}`);
      reject(error);
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
    });
  });
  const readyMessage = await ready;
  return {
    ready: readyMessage,
    child: {
      name: options.name,
      process: child,
      pid: child.pid as number,
      call<Result>(type: string, payload: Record<string, unknown> = {}) {
        const id = nextId++;
        return new Promise<Result>((resolve, reject) => {
          pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
          child.send({ id, type, ...payload });
        });
      },
      stop: () => stopChild(child),
    },
  };
}

/** The instant upstream (bench/upstream-process.ts) in a process of its own, its output in `logDirectory`. */
export function startUpstreamProcess(logDirectory: string): Promise<{ child: BenchChild; ready: { url: string } }> {
  return startTypeScriptChild<{ url: string }>({
    name: 'instant upstream',
    args: [join(dirname(fileURLToPath(import.meta.url)), 'upstream-process.ts')],
    env: process.env,
    logFile: join(logDirectory, 'upstream.log'),
  });
}

/** Starts a plain program and waits until `isReady` says it answers. */
export async function startProgram(options: StartOptions & { isReady: () => Promise<boolean> }): Promise<BenchChild> {
  const log = openLog(options.logFile);
  const child = spawn(options.command, options.args, { env: options.env, stdio: ['ignore', log, log] });
  closeSync(log);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exited (${code ?? signal})`;
  });
  child.once('error', (error) => {
    exited = `could not start: ${error.message}`;
  });
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (exited) throw new Error(`${options.name} ${exited}; see ${options.logFile}`);
    if (await options.isReady().catch(() => false)) break;
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(
        `${options.name} did not answer within ${options.timeoutMs ?? 60_000} ms; see ${options.logFile}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    name: options.name,
    process: child,
    pid: child.pid as number,
    call: () => Promise.reject(new Error(`${options.name} takes no calls`)),
    stop: () => stopChild(child),
  };
}

/**
 * The child's stdout and stderr go straight to its log file, as a service's output goes to its journal: not through
 * a pipe to this process, whose event loop (the load generator's) would otherwise copy every log line, and whose
 * slowness to drain the pipe would block a child that writes its logs synchronously, as Node does to pipes.
 */
function openLog(logFile: string): number {
  return openSync(logFile, 'a');
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** The child's side of `call`: answers each `{ id, type }` message with the handler's result. */
export function answerParent(handlers: Record<string, (message: Record<string, unknown>) => Promise<unknown>>): void {
  process.on('message', (message: { id: number; type: string } & Record<string, unknown>) => {
    const handler = handlers[message.type];
    if (!handler) {
      process.send?.({ id: message.id, error: `no handler for ${message.type}` });
      return;
    }
    handler(message).then(
      (result) => process.send?.({ id: message.id, result }),
      (error: unknown) =>
        process.send?.({ id: message.id, error: error instanceof Error ? error.stack : String(error) }),
    );
  });
}

export function tellParentReady(result: unknown): void {
  process.send?.({ type: 'ready', result });
}
