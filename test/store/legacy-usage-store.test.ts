import { readFile } from 'node:fs/promises';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLegacyUsageRecord } from '../../shared/admin/legacy-usage-record.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import { importLegacyUsageRecords, type LegacyUsageRecord } from '../../shared/store/legacy-usage-store.ts';
import { putRunningRecord } from '../../shared/store/usage-record-store.ts';
import { startTestStore } from '../support/test-store.ts';

let services: GatewayServices;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ services, close } = await startTestStore());
});
afterAll(async () => close());

const fixture = new URL('../fixtures/legacy-usage/engine-0.1.jsonl', import.meta.url);

async function fixtureReadings(): Promise<{ record: LegacyUsageRecord; withheld: string[] }[]> {
  const lines = (await readFile(fixture, 'utf8')).split('\n').filter((line) => line.trim() !== '');
  return lines.map((line) => {
    const reading = readLegacyUsageRecord(JSON.parse(line));
    if (!reading.ok) throw new Error(`fixture line is bad: ${reading.problem}`);
    return reading;
  });
}

async function fixtureRecords(): Promise<LegacyUsageRecord[]> {
  return (await fixtureReadings()).map((reading) => reading.record);
}

async function scan(tableName: string): Promise<Record<string, unknown>[]> {
  const result = await services.client.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
  return result.Items ?? [];
}

/** Items in a stable order, so two scans of an unchanged table compare equal. */
async function snapshot(tableName: string): Promise<string[]> {
  return (await scan(tableName)).map((item) => JSON.stringify(item, Object.keys(item).sort())).sort();
}

describe('the table of 0.1 usage records', () => {
  it('imports each record once: a second import of the same records skips them all', async () => {
    const records = await fixtureRecords();
    // The fixture repeats its first record with its fields in another order: the same content, the same id.
    expect(new Set(records.map((record) => record.id)).size).toBe(records.length - 1);

    const first = await importLegacyUsageRecords(services.legacyUsage, records, new Date('2026-01-01T00:00:00Z'));
    expect(first).toEqual({ imported: records.length - 1, skipped: 1 });
    const stored = await scan(services.legacyUsage.tableName);
    expect(stored).toHaveLength(records.length - 1);

    const second = await importLegacyUsageRecords(services.legacyUsage, records, new Date('2026-02-01T00:00:00Z'));
    expect(second).toEqual({ imported: 0, skipped: records.length });
    // Skipped records are left as they were, including when they were first imported.
    expect(await scan(services.legacyUsage.tableName)).toEqual(stored);
    for (const item of stored) expect(item['importedAt']).toBe('2026-01-01T00:00:00.000Z');
  });

  it('never writes the usage records or the rollups, so no gateway total can include them', async () => {
    await putRunningRecord(services.usage, {
      id: 'req_gateway_1',
      memberId: 'mem_1',
      keyId: 'key_1',
      provider: 'alpha',
      model: 'alpha-large',
      connectionId: 'con_1',
      upstream: 'lb',
      wire: 'openai-chat',
      stream: false,
      startedAt: '2025-06-01T09:15:00.000Z',
      day: '2025-06-01',
      reserved: 10,
      state: 'running',
    });
    const usageBefore = await snapshot(services.usage.tableName);
    const rollupsBefore = await snapshot(services.rollups.tableName);
    const controlBefore = await snapshot(services.control.tableName);

    const records = (await fixtureRecords()).map((record) => ({ ...record, id: `${record.id}-again` }));
    const result = await importLegacyUsageRecords(services.legacyUsage, records, new Date());
    expect(result.imported).toBeGreaterThan(0);

    expect(await snapshot(services.usage.tableName)).toEqual(usageBefore);
    expect(await snapshot(services.rollups.tableName)).toEqual(rollupsBefore);
    expect(await snapshot(services.control.tableName)).toEqual(controlBefore);
  });

  it('stores metadata only: no prompt, answer or credential reaches the table', async () => {
    const stored = await scan(services.legacyUsage.tableName);
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain('CANARY');
    // Fields the import does not know are kept, as JSON text, once bodies inside them are gone.
    const withEngine = stored.find((item) => String(item['raw']).includes('engine'));
    expect(JSON.parse(String(withEngine?.['raw']))).toEqual({ engine: { version: '0.1.7', node: 'worker-3' } });
    const withheld = (await fixtureReadings()).flatMap((reading) => reading.withheld);
    expect(withheld).toEqual(
      expect.arrayContaining(['prompt', 'completion', 'messages', 'api_key', 'engine.response_text']),
    );
  });

  it('keeps unreported token counts unknown (null), never 0', async () => {
    const records = await fixtureRecords();
    const rateLimited = records.find((record) => record.status === 429);
    expect(rateLimited).toMatchObject({ inputTokens: null, cachedInputTokens: null, outputTokens: null });
    const badGateway = records.find((record) => record.status === 502);
    expect(badGateway).toMatchObject({ inputTokens: 40, outputTokens: null });
  });

  it('counts a record repeated within one call once, whichever put wins', async () => {
    const [record] = await fixtureRecords();
    if (!record) throw new Error('empty fixture');
    const copy = { ...record, id: `${record.id}-race` };
    const result = await importLegacyUsageRecords(
      services.legacyUsage,
      Array.from({ length: 20 }, () => copy),
      new Date(),
    );
    expect(result).toEqual({ imported: 1, skipped: 19 });
  });
});
