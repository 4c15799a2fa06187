import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sessionStoreOver } from '../sign-in-items.ts';
import { StoreClosedError } from '../store-errors.ts';
import type { GatewayStore } from '../store-port.ts';
import type { TableLogicalName } from '../table-definitions.ts';
import { dynamoAdmission } from './dynamo-admission.ts';
import { dynamoAlerts } from './dynamo-alerts.ts';
import { dynamoAudit } from './dynamo-audit.ts';
import { dynamoConnections } from './dynamo-connections.ts';
import { dynamoKeys } from './dynamo-keys.ts';
import { dynamoLegacyUsage } from './dynamo-legacy-usage.ts';
import { dynamoMembers } from './dynamo-members.ts';
import { dynamoRecords } from './dynamo-records.ts';
import { readRollups } from './dynamo-rollup-queries.ts';
import { rebuildRollups } from './dynamo-rollup-rebuild.ts';
import { addToRollups } from './dynamo-rollups.ts';
import { dynamoSettings } from './dynamo-settings.ts';
import { dynamoSignInItems } from './dynamo-sign-in.ts';
import { createDocumentClient, type DynamoClientOptions, type DynamoTables } from './dynamo-tables.ts';
import { dynamoEarlierRecords } from './earlier-records-migration.ts';

/** The DynamoDB engine, with its client for whoever instruments it (the benchmark counts its round trips). */
export interface DynamoStore extends GatewayStore {
  readonly engine: 'dynamodb';
  readonly client: DynamoDBDocumentClient;
}

export interface DynamoStoreOptions extends DynamoClientOptions {
  tableNames: Readonly<Record<TableLogicalName, string>>;
  /** The earlier layout's records table, whose history `earlierRecords` carries in; absent where there is none. */
  earlierUsageTable?: string | undefined;
}

/**
 * The store port on DynamoDB: AWS in the stack, the embedded dynalite or any endpoint on one machine. The tables
 * must exist (the stack declares them; `ensureTables` creates them elsewhere).
 */
export function createDynamoStore(options: DynamoStoreOptions): DynamoStore {
  const client = createDocumentClient(options);
  let storeClosed = false;
  const tables: DynamoTables = {
    client,
    names: { ...options.tableNames },
    earlierUsageTable: options.earlierUsageTable,
  };
  return {
    engine: 'dynamodb',
    client,
    members: dynamoMembers(tables),
    keys: dynamoKeys(tables),
    connections: dynamoConnections(tables),
    admission: dynamoAdmission(tables),
    records: dynamoRecords(tables),
    rollups: {
      // The one verb that runs on a timer after requests end (the rollup folder's flush): after `close` it is told so.
      add: async (closed) => {
        if (storeClosed) throw new StoreClosedError();
        return addToRollups(tables, closed);
      },
      read: (query) => readRollups(tables, query),
      rebuild: (days) => rebuildRollups(tables, days),
    },
    legacyUsage: dynamoLegacyUsage(tables),
    earlierRecords: dynamoEarlierRecords(tables),
    alerts: dynamoAlerts(tables),
    audit: dynamoAudit(tables),
    sessions: sessionStoreOver(dynamoSignInItems(tables)),
    settings: dynamoSettings(tables),
    async close() {
      storeClosed = true;
      client.destroy();
    },
  };
}
