import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedDynalite } from '../../infra/local/embedded-dynalite.ts';
import { hashKeySecret } from '../../shared/auth/key-secret.ts';
import { createDocumentClient } from '../../shared/store/dynamodb/dynamo-tables.ts';
import { startTestGateway } from '../support/test-gateway.ts';

/**
 * A data folder written by a version before the lean DynamoDB layout: one member item holding its whole admission
 * state, records keyed by request id in `gateway-usage`, rollups under `day#<day>` with the day's totals under
 * `total#`. Its items are written here as that version wrote them; the first start on SQLite imports them all, and
 * the same folder opened on the `dynamodb` engine adopts the member at its first admission.
 */
let dataDir: string;
const adminKey = 'sk-gw-earlier-layout-admin-000001';
const memberSecret = 'sk-gw-earlier-layout-member-00001';
const day = '2025-04-02';
const earlierMember = {
  pk: 'member#mem_earlier',
  kind: 'member',
  id: 'mem_earlier',
  name: 'Earlier',
  role: 'member',
  status: 'active',
  policy: { dailyTokens: 100_000 },
  createdAt: `${day}T08:00:00.000Z`,
  keys: {
    key_earlier_aaaa1: { generation: 2, state: 'active' },
    key_earlier_bbbb2: { generation: 1, state: 'revoked' },
  },
  tokenDays: { [day]: 1_234 },
  minutes: {},
  keyMinutes: { key_earlier_aaaa1: {}, key_earlier_bbbb2: {} },
  leases: {},
  keyLeases: { key_earlier_aaaa1: {}, key_earlier_bbbb2: {} },
  holderDays: {},
};
const keyItem = (id: string, state: string, generation: number) => ({
  pk: `key#${id}`,
  kind: 'key',
  id,
  memberId: 'mem_earlier',
  name: id,
  state,
  generation,
  expiresAt: null,
  policy: {},
  createdAt: `${day}T08:00:00.000Z`,
  rotatedAt: null,
  keyPrefix: 'sk-gw-earl',
});
const record = {
  id: 'req_earlier_1',
  memberId: 'mem_earlier',
  keyId: 'key_earlier_aaaa1',
  provider: 'openai',
  model: 'openai/m',
  connectionId: 'con_earlier',
  upstream: 'lb',
  wire: 'openai-chat',
  stream: false,
  startedAt: `${day}T09:15:00.000Z`,
  day,
  reserved: 2_000,
  state: 'completed',
  status: 200,
  endedAt: `${day}T09:15:01.000Z`,
  durationMs: 1_000,
  inputTokens: 1_000,
  cachedInputTokens: null,
  outputTokens: 234,
  charge: 1_234,
  source: 'measured',
};
const rollup = (sk: string, extra: Record<string, unknown>) => ({
  pk: `day#${day}`,
  sk,
  memberId: 'mem_earlier',
  keyId: 'key_earlier_aaaa1',
  upstream: 'lb',
  provider: 'openai',
  model: 'openai/m',
  requests: 1,
  failed: 0,
  charge: 1_234,
  inputTokens: 1_000,
  inputTokensReported: 1,
  cachedInputTokens: 0,
  cachedInputTokensReported: 0,
  outputTokens: 234,
  outputTokensReported: 1,
  ...extra,
});

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-earlier-layout-'));
  const dynalite = await startEmbeddedDynalite(dataDir);
  const client = new DynamoDBClient({
    region: 'local',
    endpoint: dynalite.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const documents = createDocumentClient({ region: 'local', endpoint: dynalite.endpoint });
  try {
    const table = (name: string, keys: string[]) =>
      client.send(
        new CreateTableCommand({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: keys.map((key) => ({ AttributeName: key, AttributeType: 'S' })),
          KeySchema: keys.map((key, index) => ({ AttributeName: key, KeyType: index === 0 ? 'HASH' : 'RANGE' })),
        }),
      );
    await table('gateway-control', ['pk']);
    await table('gateway-usage', ['id']);
    await table('gateway-rollups', ['pk', 'sk']);
    await table('gateway-legacy-usage', ['id']);
    const put = (tableName: string, item: Record<string, unknown>) =>
      documents.send(new PutCommand({ TableName: tableName, Item: item }));
    await put('gateway-control', earlierMember);
    await put('gateway-control', keyItem('key_earlier_aaaa1', 'active', 2));
    await put('gateway-control', keyItem('key_earlier_bbbb2', 'revoked', 1));
    await put('gateway-control', {
      pk: `secret#${hashKeySecret(memberSecret)}`,
      keyId: 'key_earlier_aaaa1',
      memberId: 'mem_earlier',
      generation: 2,
    });
    await put('gateway-usage', record);
    await put('gateway-rollups', rollup('09#mem_earlier#key_earlier_aaaa1#lb#openai#openai/m', { hour: '09' }));
    await put('gateway-rollups', rollup('total#mem_earlier#key_earlier_aaaa1#lb#openai#openai/m', {}));
  } finally {
    documents.destroy();
    client.destroy();
    await dynalite.close();
  }
});
afterAll(async () => rm(dataDir, { recursive: true, force: true }));

describe('a data folder of the earlier DynamoDB layout', () => {
  it('is imported into SQLite whole: the member’s state, its keys, the record and the hour’s rollup', async () => {
    const gateway = await startTestGateway({ dataDir, adminKey, environment: { GATEWAY_STORE: 'sqlite' } });
    try {
      expect(gateway.host.storeNotes.join('\n')).toMatch(/1 usage records, 1 hourly rollups/);
      const { store } = gateway.host.services;
      const account = await store.admission.account('mem_earlier');
      expect(account).toMatchObject({
        name: 'Earlier',
        tokenDays: { [day]: 1_234 },
        keys: {
          key_earlier_aaaa1: { generation: 2, state: 'active' },
          key_earlier_bbbb2: { generation: 1, state: 'revoked' },
        },
      });
      expect(
        await store.records.get({ id: record.id, memberId: record.memberId, startedAt: record.startedAt }),
      ).toEqual(record);
      const days = await store.rollups.read({ by: 'day', first: day, last: day });
      expect(days).toMatchObject([{ requests: 1, charge: 1_234, outputTokensReported: 1 }]);
      expect(await store.keys.findBySecretHash(hashKeySecret(memberSecret))).toEqual({
        keyId: 'key_earlier_aaaa1',
        memberId: 'mem_earlier',
        generation: 2,
      });
    } finally {
      await gateway.close();
    }
  });

  it('on the dynamodb engine, gives the member its admission item at its first admission, keeping its day', async () => {
    const gateway = await startTestGateway({ dataDir, adminKey, environment: { GATEWAY_STORE: 'dynamodb' } });
    try {
      const { services } = gateway.host;
      services.now = () => new Date(`${day}T10:00:00.000Z`);
      const { authenticate } = await import('../../shared/auth/authenticate.ts');
      const { admit } = await import('../../shared/accounting/admit.ts');
      const principal = await authenticate(services, { authorization: `Bearer ${memberSecret}` });
      await admit(services, { principal, requestId: 'req_after_upgrade', reserve: 100 });
      const account = await services.store.admission.account('mem_earlier');
      expect(account?.tokenDays[day]).toBe(1_334);
      expect(account?.keys['key_earlier_aaaa1']).toMatchObject({ generation: 2, state: 'active' });
      expect(account?.keys['key_earlier_bbbb2']).toMatchObject({ state: 'revoked' });
      expect(Object.keys(account?.leases ?? {})).toEqual(['req_after_upgrade']);
    } finally {
      await gateway.close();
    }
  });
});
