import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../shared/store/create-tables.ts';
import { type TableLogicalName, tableDefinitions } from '../../shared/store/table-definitions.ts';

export interface EmbeddedStore {
  endpoint: string;
  tableNames: Readonly<Record<TableLogicalName, string>>;
  close(): Promise<void>;
}

/** Local physical names; on AWS the stack chooses them. Keyed by every logical name, so a new table must get one. */
const localTableNames: Readonly<Record<TableLogicalName, string>> = {
  control: 'gateway-control',
  usage: 'gateway-usage',
  rollups: 'gateway-rollups',
  legacyUsage: 'gateway-legacy-usage',
};

/** What the store thread (store-thread.cjs) tells the gateway. */
type StoreThreadMessage =
  | { type: 'listening'; port: number }
  | { type: 'failed'; message: string }
  | { type: 'closed'; message?: string };

/**
 * The DynamoDB API served in-process by dynalite, persisted under the data folder, with the gateway's tables
 * created on first start. Dynalite runs in its own worker thread: on one event loop with the gateway, about a
 * millisecond of store CPU per call sat between requests and between the chunks of every open stream. Only one
 * store may open a data folder: dynalite crashes on a second.
 */
export async function startEmbeddedStore(dataDir: string): Promise<EmbeddedStore> {
  const path = join(dataDir, 'dynamodb');
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
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    region: 'local',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    for (const definition of tableDefinitions) {
      await ensureTable(client, localTableNames[definition.logicalName], definition);
    }
  } catch (error) {
    closing = true;
    await worker.terminate();
    throw error;
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    tableNames: { ...localTableNames },
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
