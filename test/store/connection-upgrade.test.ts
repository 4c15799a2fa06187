import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTableNames } from '../../infra/local/open-local-store.ts';
import { migrate, schemaVersion } from '../../shared/store/sqlite/sqlite-schema.ts';
import { openSqliteStore } from '../../shared/store/sqlite/sqlite-store.ts';
import { startTestStore, type TestStore } from '../support/test-store.ts';

/**
 * Connections stored by the version before declared model limits keep working unchanged: on SQLite the database
 * of schema 2 is migrated (the `model_limits` column, empty), on DynamoDB an item without the attribute reads as
 * declaring none, and a malformed one reads without its malformed entries rather than failing every request.
 */
const earlier = {
  id: 'con_earlier',
  provider: 'anthropic',
  wire: 'anthropic-messages' as const,
  baseUrl: 'https://api.anthropic.com/v1',
  models: ['claude-a'],
  upstream: 'lb',
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  secretName: 'connections/con_earlier',
};

describe('a SQLite database of schema 2', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'gateway-upgrade-'));
  });
  afterAll(async () => rm(folder, { recursive: true, force: true }));

  it('is migrated at the first start, its connections declaring no limits and otherwise as they were', async () => {
    const path = join(folder, 'gateway.sqlite');
    const database = new Database(path);
    migrate(database, 2);
    database
      .prepare(
        `INSERT INTO connections
           (id, provider, wire, base_url, models, upstream, enabled, created_at, secret_name, private_network)
         VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, 1)`,
      )
      .run(
        earlier.id,
        earlier.provider,
        earlier.wire,
        earlier.baseUrl,
        JSON.stringify(earlier.models),
        earlier.upstream,
        earlier.createdAt,
        earlier.secretName,
      );
    database.close();

    const store = openSqliteStore({ path, synchronous: 'normal', busyTimeoutMs: 100 });
    try {
      expect(await store.connections.list()).toEqual([
        { ...earlier, privateNetwork: true, modelLimits: [], version: 1 },
      ]);
      expect(store.database.pragma('user_version', { simple: true })).toBe(schemaVersion);
    } finally {
      await store.close();
    }
  });
});

describe.each(['dynalite', 'DynamoDB Local'] as const)('a connection item on %s', (engineName) => {
  let engine: TestStore;
  let documents: DynamoDBDocumentClient;

  beforeAll(async () => {
    engine = await startTestStore(engineName);
    documents = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        region: 'local',
        endpoint: engine.endpoint,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    );
  }, 60_000);
  afterAll(async () => {
    documents?.destroy();
    await engine?.close();
  });

  const put = (item: Record<string, unknown>) =>
    documents.send(new PutCommand({ TableName: localTableNames.control, Item: item }));

  it('written before limits existed reads as declaring none', async () => {
    await put({ pk: `connection#${earlier.id}`, kind: 'connection', ...earlier });
    const [read] = (await engine.store.connections.list()).filter((connection) => connection.id === earlier.id);
    expect(read).toEqual({ ...earlier, privateNetwork: false, modelLimits: [], version: 1 });
  });

  it('with malformed limits reads the well-formed entries only', async () => {
    const id = 'con_malformed';
    await put({
      pk: `connection#${id}`,
      kind: 'connection',
      ...earlier,
      id,
      modelLimits: [
        { id: 'claude-a', contextWindow: 200_000, maxOutput: 8_192 },
        { id: 'claude-b', maxOutput: -1 },
        'not an entry',
        { contextWindow: 5 },
      ],
    });
    const [read] = (await engine.store.connections.list()).filter((connection) => connection.id === id);
    expect(read?.modelLimits).toEqual([{ id: 'claude-a', contextWindow: 200_000, maxOutput: 8_192 }]);
    await put({
      pk: 'connection#con_not_a_list',
      kind: 'connection',
      ...earlier,
      id: 'con_not_a_list',
      modelLimits: 'x',
    });
    const [notAList] = (await engine.store.connections.list()).filter(
      (connection) => connection.id === 'con_not_a_list',
    );
    expect(notAList?.modelLimits).toEqual([]);
  });
});
