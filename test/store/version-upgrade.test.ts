import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTableNames } from '../../infra/local/open-local-store.ts';
import { emptyAdmissionItem } from '../../shared/store/dynamodb/admission-item.ts';
import { keySlotOf } from '../../shared/store/dynamodb/partition-keys.ts';
import { migrate } from '../../shared/store/sqlite/sqlite-schema.ts';
import { openSqliteStore } from '../../shared/store/sqlite/sqlite-store.ts';
import { VersionConflictError } from '../../shared/store/store-errors.ts';
import type { GatewayStore } from '../../shared/store/store-port.ts';
import { startTestStore, type TestStore } from '../support/test-store.ts';

/**
 * Members, keys and connections stored before versions existed read as version 1 and update at version 1, on
 * SQLite (a database of schema 4, migrated at the first start) and on DynamoDB (items without the attribute).
 */
const createdAt = '2026-01-01T00:00:00.000Z';
const connection = {
  id: 'con_old',
  provider: 'openai',
  wire: 'openai-chat' as const,
  baseUrl: 'https://api.openai.com/v1',
  models: ['m'],
  upstream: 'lb',
  enabled: true,
  createdAt,
  secretName: 'connections/con_old',
};

async function expectVersionOne(store: GatewayStore) {
  expect(await store.members.get('mem_old', { consistent: true })).toMatchObject({ name: 'old', version: 1 });
  expect(await store.keys.get('key_old', { consistent: true })).toMatchObject({ name: 'old key', version: 1 });
  expect(await store.connections.get('con_old')).toMatchObject({ version: 1 });
  await expect(store.members.update('mem_old', 2, { name: 'x' })).rejects.toBeInstanceOf(VersionConflictError);
  expect(await store.members.update('mem_old', 1, { name: 'new' })).toMatchObject({ name: 'new', version: 2 });
  expect(await store.keys.update('key_old', 1, { policy: { rpm: 2 } })).toMatchObject({ version: 2 });
  expect(await store.connections.update('con_old', 1, { enabled: false })).toMatchObject({ version: 2 });
  expect((await store.members.setStatus('mem_old', 'disabled')).version).toBe(3);
}

describe('a SQLite database of schema 4', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'gateway-version-upgrade-'));
  });
  afterAll(async () => rm(folder, { recursive: true, force: true }));

  it('is migrated at the first start, its records at version 1 and updatable', async () => {
    const path = join(folder, 'gateway.sqlite');
    const database = new Database(path);
    migrate(database, 4);
    database
      .prepare(
        "INSERT INTO members (id, name, role, status, policy, created_at) VALUES ('mem_old', 'old', 'member', 'active', '{}', ?)",
      )
      .run(createdAt);
    database
      .prepare(
        `INSERT INTO keys (id, member_id, name, state, generation, policy, created_at, key_prefix)
         VALUES ('key_old', 'mem_old', 'old key', 'active', 1, '{}', ?, 'sk-gw-ab')`,
      )
      .run(createdAt);
    database
      .prepare(
        `INSERT INTO connections (id, provider, wire, base_url, models, upstream, enabled, created_at, secret_name)
         VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)`,
      )
      .run(
        connection.id,
        connection.provider,
        connection.wire,
        connection.baseUrl,
        JSON.stringify(connection.models),
        connection.upstream,
        createdAt,
        connection.secretName,
      );
    database.close();
    const store = openSqliteStore({ path, synchronous: 'normal', busyTimeoutMs: 100 });
    try {
      await expectVersionOne(store);
    } finally {
      await store.close();
    }
  });
});

describe.each(['dynalite', 'DynamoDB Local'] as const)('items without a version on %s', (engineName) => {
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

  it('read as version 1 and update at version 1', async () => {
    await put({
      pk: 'member#mem_old',
      kind: 'member',
      id: 'mem_old',
      name: 'old',
      role: 'member',
      status: 'active',
      policy: {},
      createdAt,
      keySlots: { [keySlotOf('key_old')]: 'key_old' },
    });
    await put({
      ...emptyAdmissionItem('mem_old', 'active'),
      k: { [keySlotOf('key_old')]: 1 },
      kl: { [keySlotOf('key_old')]: 0 },
    });
    await put({
      pk: 'key#key_old',
      kind: 'key',
      id: 'key_old',
      memberId: 'mem_old',
      name: 'old key',
      state: 'active',
      generation: 1,
      expiresAt: null,
      policy: {},
      createdAt,
      rotatedAt: null,
      keyPrefix: 'sk-gw-ab',
    });
    await put({ pk: 'connection#con_old', kind: 'connection', ...connection });
    await expectVersionOne(engine.store);
  });
});
