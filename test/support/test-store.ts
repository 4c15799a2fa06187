import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import Database from 'better-sqlite3';
import { startEmbeddedDynalite } from '../../infra/local/embedded-dynalite.ts';
import { localTableNames } from '../../infra/local/open-local-store.ts';
import { parseGatewayConfig } from '../../shared/config/gateway-config.ts';
import { createGatewayServices, type GatewayServices } from '../../shared/config/gateway-services.ts';
import { createDynamoStore, type DynamoStore } from '../../shared/store/dynamodb/dynamo-store.ts';
import { ensureTables } from '../../shared/store/dynamodb/ensure-tables.ts';
import { openSqliteStore } from '../../shared/store/sqlite/sqlite-store.ts';
import type { GatewayStore } from '../../shared/store/store-port.ts';
import { startDynamoDbLocal } from './dynamodb-local.ts';
import { heldClock, pinnedInstant } from './pinned-clock.ts';

/** The engines every store verb is held to: SQLite, and DynamoDB's API as dynalite and as AWS's DynamoDB Local. */
export const testEngineNames = ['sqlite', 'dynalite', 'DynamoDB Local'] as const;
export type TestEngineName = (typeof testEngineNames)[number];

/**
 * The engine the end-to-end harness runs the gateway on: `GATEWAY_TEST_STORE` (`sqlite`, the default of
 * `npm start`, or `dynamodb`, the embedded dynalite), which vitest.config.ts sets for the project that runs the
 * accounting and usage files a second time.
 */
export const testStoreVariable = 'GATEWAY_TEST_STORE';

export function gatewayEngineOfThisRun(): 'sqlite' | 'dynamodb' {
  const engine = process.env[testStoreVariable] ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'dynamodb') throw new Error(`${testStoreVariable} is not an engine: ${engine}`);
  return engine;
}

export interface TestStore {
  name: TestEngineName;
  store: GatewayStore;
  /** Where a DynamoDB engine answers (its tables have the local names); undefined for SQLite. */
  endpoint: string | undefined;
  /** Services around the store, with the calendar clock held on this run's pinned instant, if it has one. */
  services: GatewayServices;
  /**
   * Makes the engine refuse writes as unavailable, the real way where it has one (SQLite: another connection
   * holds the write lock past the busy time-out) and by the engine's own throttling error where it has not
   * (DynamoDB throttles on demand only on AWS). Returns the function that ends the fault.
   */
  makeUnavailable(): () => void;
  close(): Promise<void>;
}

const sqliteBusyTimeoutMs = 25;

/** A fresh store on a real engine, in a temporary folder of its own. */
export async function startTestStore(
  name: TestEngineName = 'sqlite',
  environment: Record<string, string> = {},
): Promise<TestStore> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-store-'));
  const config = parseGatewayConfig({
    ...environment,
    AWS_REGION: 'local',
    GATEWAY_SECRET_STORE: 'file',
    GATEWAY_SECRET_FILE: join(dataDir, 'secrets.json'),
  });
  const removeFolder = () => rm(dataDir, { recursive: true, force: true });
  let store: GatewayStore;
  let makeUnavailable: () => () => void;
  let stopEngine: () => Promise<void>;
  let endpoint: string | undefined;
  if (name === 'sqlite') {
    const path = join(dataDir, 'gateway.sqlite');
    store = openSqliteStore({ path, synchronous: 'normal', busyTimeoutMs: sqliteBusyTimeoutMs });
    makeUnavailable = () => {
      const writer = new Database(path);
      writer.exec('BEGIN IMMEDIATE');
      return () => {
        writer.exec('ROLLBACK');
        writer.close();
      };
    };
    stopEngine = async () => {};
  } else {
    const engine = name === 'dynalite' ? await startEmbeddedDynalite(dataDir) : await startDynamoDbLocal();
    const client = new DynamoDBClient({
      region: 'local',
      endpoint: engine.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      await ensureTables(client, localTableNames);
    } finally {
      client.destroy();
    }
    endpoint = engine.endpoint;
    const dynamo = createDynamoStore({ region: 'local', endpoint: engine.endpoint, tableNames: localTableNames });
    store = dynamo;
    makeUnavailable = () => throttleWrites(dynamo);
    stopEngine = () => engine.close();
  }
  const services = createGatewayServices(config, store);
  const instant = pinnedInstant();
  if (instant !== undefined) services.now = heldClock(instant);
  return {
    name,
    store,
    endpoint,
    services,
    makeUnavailable: () => makeUnavailable(),
    async close() {
      // As a host closes: what settled last into the rollups first, then the store (nothing left to flush later).
      await services.rollupFolder.close();
      await store.close();
      await stopEngine();
      await removeFolder();
    },
  };
}

/**
 * Every write the store sends is answered with DynamoDB's own ThrottlingException, from inside the client's
 * middleware stack (the engine's own translation sits outside it, as it does for a real throttle).
 */
function throttleWrites(store: DynamoStore): () => void {
  const name = `testThrottle${Math.random().toString(36).slice(2)}`;
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!/^(Put|Update|Delete|BatchWrite)/.test(context.commandName ?? '')) return next(args);
      throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
        name: 'ThrottlingException',
        $metadata: {},
      });
    },
    { step: 'initialize', name, priority: 'low' },
  );
  return () => {
    store.client.middlewareStack.remove(name);
  };
}
