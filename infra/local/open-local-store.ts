import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { GatewayConfig } from '../../shared/config/gateway-config.ts';
import { logger } from '../../shared/observability/logger.ts';
import { createDynamoStore } from '../../shared/store/dynamodb/dynamo-store.ts';
import { createDocumentClient } from '../../shared/store/dynamodb/dynamo-tables.ts';
import { ensureTables } from '../../shared/store/dynamodb/ensure-tables.ts';
import { openDatabase } from '../../shared/store/sqlite/sqlite-database.ts';
import { openSqliteStore } from '../../shared/store/sqlite/sqlite-store.ts';
import type { GatewayStore } from '../../shared/store/store-port.ts';
import type { TableLogicalName } from '../../shared/store/table-definitions.ts';
import { type ImportCounts, importDynamoTables } from '../../shared/store/upgrade/import-dynamodb-tables.ts';
import { dynaliteFolder, startEmbeddedDynalite } from './embedded-dynalite.ts';

/** The `dynamodb` engine's local table names, unless the environment names its own. */
export const localTableNames: Readonly<Record<TableLogicalName, string>> = {
  control: 'gateway-control',
  usage: 'gateway-records',
  rollups: 'gateway-rollups',
  legacyUsage: 'gateway-legacy-usage',
};

/**
 * The records table of the earlier layout (keyed by request id), under its local name: the SQLite import reads it,
 * and the `dynamodb` engine carries its records into the current layout (`usage migrate-earlier-records`).
 */
export const localEarlierUsageTable = 'gateway-usage';

/**
 * How often the checkpoint thread moves the write-ahead log into the database file: often enough that the log
 * stays a few megabytes at a thousand requests a second, seldom enough that a page written by many requests in
 * between is copied once.
 */
const sqliteCheckpointIntervalMs = 200;

/** The SQLite database of a data folder. */
export const sqliteDatabasePath = (dataDir: string) => join(dataDir, 'gateway.sqlite');

export interface LocalStore {
  store: GatewayStore;
  /** What a person starting the gateway should read (where the data is, what an upgrade imported). */
  notes: string[];
  close(): Promise<void>;
}

/**
 * The store of `npm start`, as `GATEWAY_STORE` chooses: SQLite in the data folder (the default), or DynamoDB at
 * `GATEWAY_DYNAMODB_ENDPOINT`, or else in the embedded dynalite, with the tables created where missing.
 */
export async function openLocalStore(config: GatewayConfig, dataDir: string): Promise<LocalStore> {
  if (config.storeEngine === 'sqlite') return openLocalSqlite(config, dataDir);
  const dynalite = config.dynamoEndpoint ? undefined : await startEmbeddedDynalite(dataDir);
  const endpoint = config.dynamoEndpoint ?? (dynalite?.endpoint as string);
  const tableNames = config.tables ?? localTableNames;
  const tableClient = new DynamoDBClient({
    region: config.region,
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await ensureTables(tableClient, tableNames);
  } catch (error) {
    await dynalite?.close();
    throw error;
  } finally {
    tableClient.destroy();
  }
  const store = createDynamoStore({
    region: config.region,
    endpoint,
    tableNames,
    // Tables named by the environment name their earlier one too, if they have one; the local names have theirs.
    earlierUsageTable: config.tables ? config.earlierUsageTable : localEarlierUsageTable,
  });
  return {
    store,
    notes: [
      dynalite ? `store: dynamodb, embedded dynalite in ${dynaliteFolder(dataDir)}` : `store: dynamodb at ${endpoint}`,
    ],
    async close() {
      await store.close();
      await dynalite?.close();
    },
  };
}

async function openLocalSqlite(config: GatewayConfig, dataDir: string): Promise<LocalStore> {
  const path = sqliteDatabasePath(dataDir);
  const notes = [`store: sqlite, ${path}`];
  if (!existsSync(path) && existsSync(dynaliteFolder(dataDir))) {
    const counts = await importEmbeddedDynalite(config, dataDir);
    notes.push(
      `Upgrade: imported the data of the earlier embedded store (${dynaliteFolder(dataDir)}) into ${path}: ` +
        `${describeCounts(counts)}. The old folder is kept untouched; remove it once you are satisfied ` +
        '(GATEWAY_STORE=dynamodb still opens it).',
    );
  }
  const store = openSqliteStore({
    path,
    synchronous: config.sqliteSynchronous,
    checkpointIntervalMs: sqliteCheckpointIntervalMs,
    onCheckpointFailure: (error) =>
      logger.error('the SQLite checkpoint thread failed; checkpoints run on the gateway thread again', { error }),
  });
  return { store, notes, close: () => store.close() };
}

/**
 * The upgrade from a data folder written by the dynalite-based version: every table copied into a new SQLite
 * file, written under a temporary name and renamed into place only once complete, so a start that dies half-way
 * leaves nothing half-imported and the next start imports again.
 */
async function importEmbeddedDynalite(config: GatewayConfig, dataDir: string): Promise<ImportCounts> {
  const target = sqliteDatabasePath(dataDir);
  const partial = `${target}.importing`;
  await rm(partial, { force: true });
  await rm(`${partial}-wal`, { force: true });
  await rm(`${partial}-shm`, { force: true });
  const dynalite = await startEmbeddedDynalite(dataDir);
  const client = createDocumentClient({ region: 'local', endpoint: dynalite.endpoint });
  const database = openDatabase({ path: partial, synchronous: 'full' });
  try {
    const counts = await importDynamoTables(
      client,
      config.tables ?? localTableNames,
      database,
      config.tables ? config.earlierUsageTable : localEarlierUsageTable,
    );
    database.close();
    await rename(partial, target);
    return counts;
  } finally {
    if (database.open) database.close();
    client.destroy();
    await dynalite.close();
  }
}

function describeCounts(counts: ImportCounts): string {
  return [
    `${counts.members} members`,
    `${counts.keys} keys (${counts.secrets} secret hashes)`,
    `${counts.connections} connections`,
    `${counts.leases} open leases`,
    `${counts.records} usage records`,
    `${counts.rollups} hourly rollups`,
    `${counts.legacyRecords} 0.1 records`,
  ].join(', ');
}
