import { beforeAll, describe, expect, it } from 'vitest';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * The admin API's updates over real HTTP, on this run's engine (vitest.config.ts runs this file on SQLite and on
 * DynamoDB): conditional on the version read (409 with the record as stored), validated (400 with a code, never a
 * 500), 404 for unknown ids, a connection's new credential through the never-echoed path, a policy change that
 * reaches the next admission even past a cached principal, and every change in the audit log, never a secret.
 */
const fixture = useGatewayFixture({ connections: [{ provider: 'openai', wire: 'openai-chat', models: ['m-1'] }] });
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});

async function call(method: 'GET' | 'POST', path: string, body?: unknown, key = gateway.adminKey) {
  const response = await fetch(`${gateway.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
    // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON came back.
    body: (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined) as any,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<{ status?: number; code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { status?: number; code?: string };
  }
  throw new Error('the request was not refused');
}

const ask = (key: string) =>
  openaiClient(gateway, key).chat.completions.create({
    model: 'm-1',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 16,
  });

describe('POST /admin/v1/members/:id/update', () => {
  it('changes the fields given at the version read, and answers 409 with the stored member for a stale one', async () => {
    const memberId = await gateway.admin.createMember({ rpm: 5 });
    const first = await call('POST', `/members/${memberId}/update`, {
      version: 1,
      name: 'Ada',
      policy: { rpm: 10, dailyTokens: 5000 },
    });
    expect(first.status).toBe(200);
    expect(first.body.member).toMatchObject({ id: memberId, name: 'Ada', policy: { rpm: 10, dailyTokens: 5000 } });
    expect(first.body.member.version).toBe(2);

    const stale = await call('POST', `/members/${memberId}/update`, { version: 1, name: 'Lost' });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('version_conflict');
    expect(stale.body.current).toMatchObject({ id: memberId, name: 'Ada', version: 2 });
    const suspended = await call('POST', `/members/${memberId}/suspend`);
    expect(suspended.body.member.version).toBe(3);
  });

  it.each([
    ['no version', { name: 'x' }],
    ['a version that is not a whole number', { version: 1.5 }],
    ['an unknown field', { version: 1, colour: 'red' }],
    ['a holder role', { version: 1, role: 'holder' }],
    ['a negative allowance', { version: 1, policy: { dailyTokens: -1 } }],
    ['an empty name', { version: 1, name: '   ' }],
  ])('answers 400 invalid_request for %s, and changes nothing', async (_label, body) => {
    const memberId = await gateway.admin.createMember();
    const answer = await call('POST', `/members/${memberId}/update`, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_request');
    expect((await gateway.host.services.store.members.get(memberId, { consistent: true }))?.version).toBe(1);
  });

  it('answers 404 for an unknown member, 400 for a path that is no id, 400 for a body that is no JSON', async () => {
    expect((await call('POST', '/members/mem_nobody/update', { version: 1 })).body.error.code).toBe('member_not_found');
    expect((await call('POST', '/members/%E0%A4%A/update', { version: 1 })).status).toBe(400);
    const memberId = await gateway.admin.createMember();
    const notJson = await call('POST', `/members/${memberId}/update`, '{"version":');
    expect(notJson.status).toBe(400);
  });

  it('is for administrators only', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey();
    const answer = await call('POST', `/members/${memberId}/update`, { version: 1, policy: {} }, key);
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('admin_only');
  });

  it('makes a lower allowance refuse the very next request, even one authenticated from the cache', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000 });
    await expect(ask(key)).resolves.toBeDefined();
    // Straight to the store, as another instance's admin call would: this process's principal cache is not cleared.
    await gateway.host.services.store.members.update(memberId, 1, { policy: { dailyTokens: 10 } });
    const refused = await failureOf(ask(key));
    expect(refused.status).toBe(429);
    expect(refused.code).toBe('token_reservation_limit');
  });
});

describe('POST /admin/v1/keys/:id/update', () => {
  it('changes name, policy and expiry conditionally; a key past its new expiry is refused at once', async () => {
    const { keyId, key } = await gateway.admin.createMemberWithKey();
    await expect(ask(key)).resolves.toBeDefined();
    const renamed = await call('POST', `/keys/${keyId}/update`, { version: 1, name: 'laptop', policy: { rpm: 3 } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.key).toMatchObject({ id: keyId, name: 'laptop', policy: { rpm: 3 }, version: 2 });
    expect(renamed.body.key.generation).toBeUndefined();
    const stale = await call('POST', `/keys/${keyId}/update`, { version: 1, name: 'desk' });
    expect(stale.status).toBe(409);
    expect(stale.body.current).toMatchObject({ name: 'laptop', version: 2 });
    expect((await call('POST', `/keys/${keyId}/update`, { version: 2, policy: { dailyTokens: 5 } })).status).toBe(400);
    const expired = await call('POST', `/keys/${keyId}/update`, { version: 2, expiresAt: '2000-01-01T00:00:00Z' });
    expect(expired.body.key.expiresAt).toBe('2000-01-01T00:00:00Z');
    expect((await failureOf(ask(key))).status).toBe(401);
    expect((await call('POST', '/keys/key_nobody/update', { version: 1 })).body.error.code).toBe('key_not_found');
  });
});

describe('POST /admin/v1/connections/:id/update', () => {
  it('stores a new credential first, never echoes it, and deletes the old one once the connection points at it', async () => {
    const id = await gateway.admin.createConnection({
      provider: 'beta',
      wire: 'openai-chat',
      baseUrl: `${fixture.upstream.url}/v1`,
      models: ['b-1'],
      apiKey: 'first-credential',
    });
    const before = await gateway.host.services.store.connections.get(id);
    const answer = await call('POST', `/connections/${id}/update`, {
      version: 1,
      apiKey: 'second-credential',
      models: ['b-1', { id: 'b-2', contextWindow: 1000, maxOutput: 100 }],
    });
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain('second-credential');
    expect(answer.text).not.toContain('secretName');
    expect(answer.body.connection).toMatchObject({ id, models: ['b-1', 'b-2'], version: 2 });
    const after = await gateway.host.services.store.connections.get(id);
    expect(after?.secretName).not.toBe(before?.secretName);
    expect(await gateway.host.services.secrets.read(after?.secretName ?? '')).toBe('second-credential');
    await expect(gateway.host.services.secrets.read(before?.secretName ?? '')).rejects.toThrow();

    const stale = await call('POST', `/connections/${id}/update`, { version: 1, apiKey: 'third-credential' });
    expect(stale.status).toBe(409);
    expect(stale.body.current).toMatchObject({ id, version: 2 });
    expect(stale.text).not.toContain('credential"');
    expect((await gateway.host.services.store.connections.get(id))?.secretName).toBe(after?.secretName);

    const badUrl = await call('POST', `/connections/${id}/update`, { version: 2, baseUrl: 'ftp://x' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error.code).toBe('invalid_base_url');
    expect((await call('POST', `/connections/${id}/disable`)).body.connection.version).toBe(3);
    expect((await call('POST', '/connections/con_nobody/update', { version: 1 })).status).toBe(404);
  });
});

describe('GET /admin/v1/audit', () => {
  it('lists every change newest first with who, what and the fields before and after, never a secret', async () => {
    const created = await gateway.admin.createMemberWithKey();
    await call('POST', `/members/${created.memberId}/update`, { version: 1, name: 'Grace' });
    const rotated = await call('POST', `/keys/${created.keyId}/rotate`);
    await call('POST', `/keys/${created.keyId}/revoke`);

    const page = await call('GET', `/audit?target=${created.keyId}`);
    expect(page.status).toBe(200);
    expect(page.body.entries.map((entry: { action: string }) => entry.action)).toEqual([
      'key.revoke',
      'key.rotate',
      'key.create',
    ]);
    const admin = (await gateway.host.services.store.members.list()).find((member) => member.role === 'admin');
    expect(page.body.entries[0]).toMatchObject({
      actor: { memberId: admin?.id, via: 'key' },
      target: { type: 'key', id: created.keyId },
      before: { state: 'active' },
      after: { state: 'revoked' },
    });
    const update = await call('GET', `/audit?target=${created.memberId}&action=member.update`);
    expect(update.body.entries).toHaveLength(1);
    expect(update.body.entries[0]).toMatchObject({
      before: { name: 'test member', version: 1 },
      after: { name: 'Grace', version: 2 },
    });

    const everything = JSON.stringify((await call('GET', '/audit?limit=200')).body);
    for (const secret of [created.key, rotated.body.key, 'second-credential', 'upstream-secret-credential']) {
      expect(everything).not.toContain(secret);
    }
    expect(everything).not.toContain('secretName');
  });

  it('pages with a hex cursor and refuses a forged one, and exports formula-safe CSV', async () => {
    const memberId = await gateway.admin.createMember();
    for (const name of ['=HYPERLINK("x")', 'two', 'three']) {
      const member = await gateway.host.services.store.members.get(memberId, { consistent: true });
      await call('POST', `/members/${memberId}/update`, { version: member?.version, name });
    }
    const first = await call('GET', `/audit?target=${memberId}&limit=2`);
    expect(first.body.entries).toHaveLength(2);
    expect(first.body.nextCursor).toMatch(/^[0-9a-f]+$/);
    const second = await call('GET', `/audit?target=${memberId}&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.entries.map((entry: { action: string }) => entry.action)).toEqual([
      'member.update',
      'member.create',
    ]);
    expect(second.body.nextCursor).toBeNull();
    expect((await call('GET', '/audit?cursor=zz')).body.error.code).toBe('invalid_cursor');
    expect((await call('GET', '/audit?limit=0')).status).toBe(400);

    const csv = await call('GET', `/audit.csv?target=${memberId}`);
    expect(csv.status).toBe(200);
    expect(csv.contentType).toContain('text/csv');
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,actor_member_id,actor_key_id,via,action,target_type,target_id,before,after');
    expect(lines).toHaveLength(5);
    expect(csv.text).not.toMatch(/,=HYPERLINK/);
  });
});
