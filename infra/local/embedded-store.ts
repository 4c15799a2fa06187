import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
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

/**
 * The DynamoDB API served in-process by dynalite, persisted under the data folder, with the gateway's tables
 * created on first start. Only one process may open a data folder: dynalite crashes on a second.
 */
export async function startEmbeddedStore(dataDir: string): Promise<EmbeddedStore> {
  const path = join(dataDir, 'dynamodb');
  await mkdir(path, { recursive: true });
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({
    region: 'local',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    for (const definition of tableDefinitions) {
      await ensureTable(client, localTableNames[definition.logicalName], definition);
    }
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    tableNames: { ...localTableNames },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error?: Error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets of the SDK clients would hold the close open.
        server.closeAllConnections();
      }),
  };
}
