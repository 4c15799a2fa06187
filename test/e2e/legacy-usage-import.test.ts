import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../cli/cli-harness.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, usageSnapshot } from '../support/usage-records.ts';

const goodFile = fileURLToPath(new URL('../fixtures/legacy-usage/engine-0.1.jsonl', import.meta.url));
const malformedFile = fileURLToPath(new URL('../fixtures/legacy-usage/malformed.jsonl', import.meta.url));

const fixture = useGatewayFixture({
  connections: [{ provider: 'alpha', wire: 'openai-chat', models: ['alpha-large'] }],
  member: { dailyTokens: 1_000_000 },
});
let gateway: TestGateway;

beforeAll(async () => {
  ({ gateway } = fixture);
  // One real gateway request first, so the usage and rollup tables hold something that could be disturbed.
  const { memberId, key } = fixture.member;
  const client = openaiClient(gateway, key);
  await client.chat.completions.create({ model: 'alpha/alpha-large', messages: [{ role: 'user', content: 'hi' }] });
  await memberAfterSettlement(gateway.host.services, memberId);
});

const importFile = (file: string, ...flags: string[]) =>
  runInProcess(['usage', 'import-legacy', file, ...flags], {
    env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey },
    fetch: globalThis.fetch,
  });

const storedLegacyRecords = () => gateway.host.services.store.legacyUsage.list();

describe('usage import-legacy against the running gateway', () => {
  it('refuses a malformed file with exit 2 and stores none of it, not even its good lines', async () => {
    const run = await importFile(malformedFile);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('malformed.jsonl line 2: model: required');
    expect(await storedLegacyRecords()).toEqual([]);
  });

  it('stores the records apart, leaving gateway records and rollups untouched, and skips them on a second run', async () => {
    const { services } = gateway.host;
    const before = await usageSnapshot(services);
    expect(before.records).toHaveLength(1);
    expect(before.rollups.length).toBeGreaterThan(0);

    const first = await importFile(goodFile);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    // Six records; the sixth repeats the first with its fields reordered, so it is the same record.
    expect(first.stdout).toBe('imported 5 records of the 0.1 engine; skipped 1 already imported\n');

    const second = await importFile(goodFile, '--json');
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ imported: 0, skipped: 6 });

    const stored: Record<string, unknown>[] = (await storedLegacyRecords()).map((record) => ({ ...record }));
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

    expect(await usageSnapshot(services)).toEqual(before);
  });
});
