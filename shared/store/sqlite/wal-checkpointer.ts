import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints of the write-ahead log in a thread of their own. SQLite checkpoints on the committing connection by
 * default: every thousand pages of log a commit also copies them into the database file and syncs both files,
 * which here took 5 ms typically and up to 80 ms, and the gateway's one event loop (every request and stream of
 * the process) waits for it. SQLite's documentation names the remedy: turn the automatic checkpoints off and run
 * them from another thread (https://www.sqlite.org/wal.html#automatic_checkpoint). This thread opens its own
 * connection to the file and runs a PASSIVE checkpoint every `intervalMs`, which never waits for the gateway's
 * writes nor makes them wait; a page written many times between two checkpoints is copied once.
 *
 * Durability is unchanged: a commit is in the log, synced as `synchronous` says, before it returns; a checkpoint
 * only moves committed pages into the database file, syncing as the gateway's own connection would have.
 */
export interface WalCheckpointer {
  /** Stops the thread and closes its connection; the gateway's own connection checkpoints the rest as it closes. */
  stop(): Promise<void>;
}

export interface WalCheckpointerOptions {
  path: string;
  intervalMs: number;
  synchronous: 'normal' | 'full';
  /** The thread failed or ended on its own: the caller turns the connection's automatic checkpoints back on. */
  onFailure: (error: Error) => void;
}

/** The thread's code: CommonJS, evaluated as is, so it needs no loader for TypeScript wherever the gateway runs. */
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
// An error crosses to the parent as a plain object without its message: send the text, then end.
const failed = (error) => {
  parentPort.postMessage({ failure: String(error && error.message ? error.message : error) });
  process.exit(1);
};
try {
  const Database = require(workerData.binding);
  const database = new Database(workerData.path, { fileMustExist: true });
  database.pragma('synchronous = ' + workerData.synchronous);
  const timer = setInterval(() => {
    try {
      database.pragma('wal_checkpoint(PASSIVE)');
    } catch (error) {
      failed(error);
    }
  }, workerData.intervalMs);
  parentPort.once('message', () => {
    clearInterval(timer);
    database.close();
    parentPort.close();
  });
} catch (error) {
  failed(error);
}
`;

export function startWalCheckpointer(options: WalCheckpointerOptions): WalCheckpointer {
  const worker = new Worker(threadSource, {
    eval: true,
    workerData: {
      binding: createRequire(import.meta.url).resolve('better-sqlite3'),
      path: options.path,
      synchronous: options.synchronous === 'full' ? 'FULL' : 'NORMAL',
      intervalMs: options.intervalMs,
    },
  });
  // It keeps no request alive: a process that has nothing else to do may end without stopping it.
  worker.unref();
  let stopping = false;
  let failed = false;
  const fail = (error: Error) => {
    if (stopping || failed) return;
    failed = true;
    options.onFailure(error);
  };
  worker.on('message', (message: { failure?: string }) => {
    if (message.failure !== undefined) fail(new Error(`SQLite checkpoint thread: ${message.failure}`));
  });
  worker.once('error', (error) => fail(error instanceof Error ? error : new Error(String(error))));
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      fail(new Error(`the checkpoint thread ended (exit code ${code})`));
      resolve();
    }),
  );
  return {
    async stop() {
      stopping = true;
      // Held again while it stops: a closing host may have nothing else left to keep the process up, and a process
      // that ends here ends before the rest of its close (the store's connection, the data folder's lock).
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
