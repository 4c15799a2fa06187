import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseGatewayConfig } from '../../../shared/config/gateway-config.ts';
import { createGatewayServices, type GatewayServices } from '../../../shared/config/gateway-services.ts';
import { ensureTable } from '../../../shared/store/create-tables.ts';
import { type TableLogicalName, tableDefinitions, tableEnvironment } from '../../../shared/store/table-definitions.ts';
import { startTestStore } from '../../support/test-store.ts';
import { startDynamoDbLocal } from './dynamodb-local.ts';

export interface RunningStore {
  services: GatewayServices;
  close(): Promise<void>;
}

/** A DynamoDB engine the store contract must hold on. */
export interface StoreEngine {
  name: string;
  start(): Promise<RunningStore>;
}

const dynalite: StoreEngine = { name: 'dynalite', start: () => startTestStore() };

const dynamoDbLocal: StoreEngine = {
  name: 'DynamoDB Local',
  async start() {
    const engine = await startDynamoDbLocal();
    const dataDir = await mkdtemp(join(tmpdir(), 'gateway-ddb-local-'));
    try {
      // Every table the shared definitions list, so a new table is covered without touching this file.
      const tableNames = Object.fromEntries(
        tableDefinitions.map((definition) => [definition.logicalName, `contract-${definition.logicalName}`]),
      ) as Record<TableLogicalName, string>;
      const client = new DynamoDBClient({
        region: 'local',
        endpoint: engine.endpoint,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      try {
        for (const definition of tableDefinitions) {
          await ensureTable(client, tableNames[definition.logicalName], definition);
        }
      } finally {
        client.destroy();
      }
      const services = createGatewayServices(
        parseGatewayConfig({
          ...tableEnvironment(tableNames),
          GATEWAY_DYNAMODB_ENDPOINT: engine.endpoint,
          AWS_REGION: 'local',
          GATEWAY_SECRET_STORE: 'file',
          GATEWAY_SECRET_FILE: join(dataDir, 'secrets.json'),
        }),
      );
      return {
        services,
        async close() {
          services.client.destroy();
          await engine.close();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    } catch (error) {
      await engine.close();
      throw error;
    }
  },
};

export const storeEngines: readonly StoreEngine[] = [dynalite, dynamoDbLocal];
