import { beforeAll, describe, expect, it } from 'vitest';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * A member's own page (`/me`) and the team settings, over real HTTP on this run's engine: a member sees their own
 * allowance and keys, creates keys up to the limit and never wider than their policy, rotates and revokes only
 * their own (another member's key is a 404), and every change is audited with the member as its actor.
 */
const fixture = useGatewayFixture({ environment: { GATEWAY_MAX_KEYS_PER_MEMBER: '3' } });
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});

async function call(key: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const response = await fetch(`${gateway.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON came back.
  return { status: response.status, text, body: JSON.parse(text) as any };
}

describe('/admin/v1/me', () => {
  it('shows a member their own view, keys and limit, and refuses them the administrators’ routes', async () => {
    const { memberId, keyId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1000, rpm: 10 });
    const me = await call(key, 'GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body.member).toMatchObject({ id: memberId, keyCount: 1, today: { dailyTokens: 1000, left: 1000 } });
    expect(me.body.keys.map((shown: { id: string }) => shown.id)).toEqual([keyId]);
    expect(me.body.limits).toEqual({ maxLiveKeys: 3 });
    expect((await call(key, 'GET', '/members')).body.error.code).toBe('admin_only');
    expect((await call(key, 'GET', '/settings')).status).toBe(403);
  });

  it('creates keys up to the limit, never wider than the member’s policy, and audits them', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ rpm: 10, providers: ['openai'] });
    const tooWide = await call(key, 'POST', '/me/keys', { policy: { rpm: 11 } });
    expect(tooWide.status).toBe(403);
    expect(tooWide.body.error.code).toBe('policy_too_wide');
    expect((await call(key, 'POST', '/me/keys', { policy: { providers: ['anthropic'] } })).status).toBe(403);
    expect((await call(key, 'POST', '/me/keys', { policy: { dailyTokens: 5 } })).status).toBe(400);
    const created = await call(key, 'POST', '/me/keys', { name: 'ci', policy: { rpm: 5 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ memberId, name: 'ci', policy: { rpm: 5 }, state: 'active', version: 1 });
    expect(created.body.key).toMatch(/^sk-/);
    expect((await call(key, 'POST', '/me/keys', {})).status).toBe(201);
    const refused = await call(key, 'POST', '/me/keys', {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('key_limit_reached');

    const audit = await gateway.admin.call<{ entries: { action: string; actor: { memberId: string } }[] }>(
      'GET',
      `/audit?actor=${memberId}`,
    );
    expect(audit.entries.map((entry) => entry.action)).toEqual(['key.create', 'key.create']);
    expect(JSON.stringify(audit)).not.toContain(created.body.key);
  });

  it('rotates and revokes only the member’s own keys: another member’s key is a 404', async () => {
    const own = await gateway.admin.createMemberWithKey();
    const other = await gateway.admin.createMemberWithKey();
    for (const verb of ['rotate', 'revoke']) {
      const answer = await call(own.key, 'POST', `/me/keys/${other.keyId}/${verb}`);
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('key_not_found');
    }
    const spare = await call(own.key, 'POST', '/me/keys', {});
    const rotated = await call(own.key, 'POST', `/me/keys/${spare.body.id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).not.toBe(spare.body.key);
    const revoked = await call(own.key, 'POST', `/me/keys/${spare.body.id}/revoke`);
    expect(revoked.body.key).toMatchObject({ id: spare.body.id, state: 'revoked' });
    expect((await call(own.key, 'POST', '/me/keys/key_nobody/revoke')).status).toBe(404);
  });

  it('refuses a disabled member', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey();
    await gateway.admin.call('POST', `/members/${memberId}/disable`);
    expect((await call(key, 'GET', '/me')).status).toBe(403);
  });
});

describe('/admin/v1/settings', () => {
  it('reads version 1 with no default policy, updates conditionally and audits the change', async () => {
    const admin = gateway.adminKey;
    expect((await call(admin, 'GET', '/settings')).body).toEqual({ settings: { version: 1, defaultPolicy: {} } });
    const updated = await call(admin, 'POST', '/settings/update', { version: 1, defaultPolicy: { dailyTokens: 500 } });
    expect(updated.body).toEqual({ settings: { version: 2, defaultPolicy: { dailyTokens: 500 } } });
    const stale = await call(admin, 'POST', '/settings/update', { version: 1, defaultPolicy: {} });
    expect(stale.status).toBe(409);
    expect(stale.body.current).toEqual({ version: 2, defaultPolicy: { dailyTokens: 500 } });
    expect((await call(admin, 'POST', '/settings/update', { version: 2 })).status).toBe(400);
    const audit = await gateway.admin.call<{ entries: { after: unknown }[] }>('GET', '/audit?action=settings.update');
    expect(audit.entries[0]?.after).toEqual({ version: 2, defaultPolicy: { dailyTokens: 500 } });
  });
});
