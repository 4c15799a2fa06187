import { beforeAll, describe, expect, it } from 'vitest';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';

const fixture = useGatewayFixture();
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});

const record = (index: number, extra: Record<string, unknown> = {}) => ({
  timestamp: `2025-06-01T09:${String(index).padStart(2, '0')}:00Z`,
  keyId: 'key_api',
  provider: 'alpha',
  model: 'alpha-large',
  inputTokens: index,
  ...extra,
});

/** Posts as the administrator unless given another key, or `null` for none. */
async function post(body: unknown, key: string | null = gateway.adminKey) {
  const response = await fetch(`${gateway.url}/admin/v1/legacy-usage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function storedItems(): Promise<Record<string, unknown>[]> {
  return (await gateway.host.services.store.legacyUsage.list()).map((record) => ({ ...record }));
}

describe('POST /admin/v1/legacy-usage', () => {
  it('is for administrators only', async () => {
    const { key } = await gateway.admin.createMemberWithKey();
    const asMember = await post({ records: [record(1)] }, key);
    expect(asMember.status).toBe(403);
    expect(asMember.body).toMatchObject({ error: { code: 'admin_only' } });
    expect((await post({ records: [record(1)] }, null)).status).toBe(401);
    expect(await storedItems()).toEqual([]);
  });

  it.each([
    ['a body that is not an object', '[1]', 'invalid_json'],
    ['no records', {}, 'invalid_request'],
    ['an empty batch', { records: [] }, 'invalid_request'],
    [
      'more than 100 records',
      { records: Array.from({ length: 101 }, (_, index) => record(index % 60)) },
      'invalid_request',
    ],
    ['an unknown field beside the records', { records: [record(1)], dryRun: true }, 'invalid_request'],
  ])('answers 400 for %s', async (_label, body, code) => {
    const answer = await post(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code } });
    expect(await storedItems()).toEqual([]);
  });

  it('refuses a batch with a bad record whole, naming the record, and stores none of it', async () => {
    const answer = await post({ records: [record(1), record(2, { provider: undefined }), record(3)] });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: { code: 'invalid_legacy_record', message: 'records[1]: provider: required.' },
    });
    expect(await storedItems()).toEqual([]);
  });

  it('stores new records, skips those already stored, and removes bodies and credentials itself', async () => {
    const batch = [
      record(1, { messages: [{ role: 'user', content: 'API-PROMPT-CANARY' }], authorization: 'Bearer API-SECRET' }),
      record(2),
    ];
    expect(await post({ records: batch })).toEqual({ status: 200, body: { imported: 2, skipped: 0 } });
    expect(await post({ records: [...batch, record(3)] })).toEqual({ status: 200, body: { imported: 1, skipped: 2 } });

    const stored = await storedItems();
    expect(stored).toHaveLength(3);
    expect(JSON.stringify(stored)).not.toMatch(/CANARY|API-SECRET/);
    // The same line sent by the CLI (which removes the body first) is the same record: no duplicate.
    expect(await post({ records: [record(1)] })).toEqual({ status: 200, body: { imported: 0, skipped: 1 } });
  });
});
