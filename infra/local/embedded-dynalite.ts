import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface EmbeddedDynalite {
  endpoint: string;
  close(): Promise<void>;
}

/** Where the embedded dynalite keeps its LevelDB files, inside the data folder. */
export const dynaliteFolder = (dataDir: string) => join(dataDir, 'dynamodb');

/** What the store thread (store-thread.cjs) tells the gateway. */
type StoreThreadMessage =
  | { type: 'listening'; port: number }
  | { type: 'failed'; message: string }
  | { type: 'closed'; message?: string };

/**
 * The DynamoDB API served in-process by dynalite, persisted under the data folder. Dynalite runs in its own worker thread: on one event loop with the gateway, about a
 * millisecond of store CPU per call sat between requests and between the chunks of every open stream. Only one
 * store may open a data folder: dynalite crashes on a second.
 */
export async function startEmbeddedDynalite(dataDir: string): Promise<EmbeddedDynalite> {
  const path = dynaliteFolder(dataDir);
  await mkdir(path, { recursive: true });
  const worker = new Worker(new URL('./store-thread.cjs', import.meta.url), {
    workerData: { options: { path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 } },
  });
  let closing = false;
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the store thread exited with code ${code} while starting`)));
    worker.once('message', (message: StoreThreadMessage) => {
      if (message.type === 'listening') resolve(message.port);
      else reject(new Error(`the embedded store did not start: ${'message' in message ? message.message : ''}`));
    });
  });
  worker.removeAllListeners();
  // A gateway without its store cannot admit or settle anything: a store thread that dies is fatal, loudly.
  worker.on('error', (error) => {
    throw error;
  });
  worker.on('exit', (code) => {
    if (!closing) throw new Error(`the embedded store thread exited unexpectedly with code ${code}`);
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      if (closing) return;
      closing = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      const closed = new Promise<StoreThreadMessage>((resolve) => worker.once('message', resolve));
      worker.postMessage('close');
      const answer = await closed;
      await exited;
      if (answer.type === 'closed' && answer.message) throw new Error(answer.message);
    },
  };
}
