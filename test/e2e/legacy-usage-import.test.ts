import { fileURLToPath } from 'node:url';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../cli/cli-harness.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement } from '../support/usage-records.ts';

const goodFile = fileURLToPath(new URL('../fixtures/legacy-usage/engine-0.1.jsonl', import.meta.url));
const malformedFile = fileURLToPath(new URL('../fixtures/legacy-usage/malformed.jsonl', import.meta.url));

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  // One real gateway request first, so the usage and rollup tables hold something that could be disturbed.
  await gateway.admin.createConnection({
    provider: 'alpha',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/v1`,
    models: ['alpha-large'],
  });
  const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
  const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
  await client.chat.completions.create({ model: 'alpha/alpha-large', messages: [{ role: 'user', content: 'hi' }] });
  await memberAfterSettlement(gateway.host.services, memberId);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

const importFile = (file: string, ...flags: string[]) =>
  runInProcess(['usage', 'import-legacy', file, ...flags], {
    env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey },
    fetch: globalThis.fetch,
  });

async function scan(tableName: string): Promise<Record<string, unknown>[]> {
  const { client } = gateway.host.services;
  return (await client.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }))).Items ?? [];
}

/** A table's items in a stable order, to show that an import left it exactly as it was. */
async function snapshot(tableName: string): Promise<string[]> {
  return (await scan(tableName)).map((item) => JSON.stringify(item, Object.keys(item).sort())).sort();
}

describe('usage import-legacy against the running gateway', () => {
  it('refuses a malformed file with exit 2 and stores none of it, not even its good lines', async () => {
    const run = await importFile(malformedFile);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('malformed.jsonl line 2: model: required');
    expect(await scan(gateway.host.services.legacyUsage.tableName)).toEqual([]);
  });

  it('stores the records apart, leaving gateway records and rollups untouched, and skips them on a second run', async () => {
    const { services } = gateway.host;
    const usageBefore = await snapshot(services.usage.tableName);
    const rollupsBefore = await snapshot(services.rollups.tableName);
    expect(usageBefore).toHaveLength(1);
    expect(rollupsBefore.length).toBeGreaterThan(0);

    const first = await importFile(goodFile);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    // Six records; the sixth repeats the first with its fields reordered, so it is the same record.
    expect(first.stdout).toBe('imported 5 records of the 0.1 engine; skipped 1 already imported\n');

    const second = await importFile(goodFile, '--json');
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ imported: 0, skipped: 6 });

    const stored = await scan(services.legacyUsage.tableName);
    expect(stored).toHaveLength(5);
    expect(JSON.stringify(stored)).not.toContain('CANARY');
    expect(stored.every((item) => item['generation'] === '0.1')).toBe(true);
    expect(stored.find((item) => item['memberId'] === 'mem_legacy_b' && item['provider'] === 'beta')).toMatchObject({
      timestamp: '2025-06-01T09:30:00.000Z',
      status: 'ok',
      inputTokens: 80,
      outputTokens: 12,
      cachedInputTokens: null,
    });

    expect(await snapshot(services.usage.tableName)).toEqual(usageBefore);
    expect(await snapshot(services.rollups.tableName)).toEqual(rollupsBefore);
  });
});
