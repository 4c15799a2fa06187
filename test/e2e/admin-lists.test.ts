import { beforeAll, describe, expect, it } from 'vitest';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';

/**
 * The admin API's paged, filtered lists and one member's view, over real HTTP on this run's engine: cursors that
 * walk a list once (hex, so the read stage lets them through), name and state filters, today's allowance and the
 * live key count, and a 400 with a code for every malformed query.
 */
const fixture = useGatewayFixture({ connections: [{ provider: 'openai', wire: 'openai-chat', models: ['m-1'] }] });
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});

async function get(path: string) {
  const response = await fetch(`${gateway.url}/admin/v1${path}`, {
    headers: { authorization: `Bearer ${gateway.adminKey}` },
  });
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON came back.
  return { status: response.status, body: (await response.json()) as any };
}

async function walk(path: string, field: 'members' | 'keys' | 'connections', limit: number) {
  const seen: { id: string }[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page = await get(`${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    expect(page.body[field].length).toBeLessThanOrEqual(limit);
    seen.push(...page.body[field]);
    cursor = page.body.nextCursor;
    pages++;
  } while (cursor !== null && pages < 50);
  return seen;
}

describe('GET /admin/v1/members', () => {
  it('walks every member once, page by page, and filters by a part of the name and by state', async () => {
    const tag = `zeta${Date.now().toString(36)}`;
    const ids: string[] = [];
    for (let index = 0; index < 7; index++) {
      const answer = await gateway.admin.call<{ member: { id: string } }>('POST', '/members', {
        name: `${index % 2 === 0 ? tag.toUpperCase() : tag} ${index}`,
      });
      ids.push(answer.member.id);
    }
    await gateway.admin.call('POST', `/members/${ids[0]}/disable`);
    const named = await walk(`/members?name=${tag}`, 'members', 3);
    expect(named.map((member) => member.id).sort()).toEqual([...ids].sort());
    expect(new Set(named.map((member) => member.id)).size).toBe(7);
    const disabled = await get(`/members?name=${tag}&state=disabled`);
    expect(disabled.body.members.map((member: { id: string }) => member.id)).toEqual([ids[0]]);
    expect(disabled.body.nextCursor).toBeNull();
    const everyone = await walk('/members', 'members', 200);
    expect(everyone.length).toBeGreaterThanOrEqual(8);
  });

  it('shows today’s allowance used, reserved and left, when it resets, and the live keys', async () => {
    const { memberId, key, keyId } = await gateway.admin.createMemberWithKey({ dailyTokens: 50_000 });
    await gateway.admin.createKey(memberId);
    const expiring = await gateway.admin.createKey(memberId);
    await gateway.admin.call('POST', `/keys/${expiring.id}/update`, { version: 1, expiresAt: '2001-01-01T00:00:00Z' });
    await openaiClient(gateway, key).chat.completions.create({
      model: 'm-1',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 16,
    });
    // Settlement runs after the answer: wait for it, so the charge (or the reservation) is counted either way.
    await Promise.all([...gateway.host.services.background]);
    const { body, status } = await get(`/members/${memberId}`);
    expect(status).toBe(200);
    const now = gateway.host.services.now();
    const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    expect(body.member).toMatchObject({ id: memberId, version: 1, keyCount: 2 });
    expect(body.member.today).toMatchObject({ dailyTokens: 50_000, resetsAt: midnight.toISOString() });
    const { used, reserved, left } = body.member.today;
    expect(used + reserved).toBeGreaterThan(0);
    expect(left).toBe(50_000 - used - reserved);
    await gateway.admin.call('POST', `/keys/${keyId}/revoke`);
    expect((await get(`/members/${memberId}`)).body.member.keyCount).toBe(1);
    const unlimited = await gateway.admin.createMember();
    expect((await get(`/members/${unlimited}`)).body.member.today).toMatchObject({ left: null, dailyTokens: null });
    expect((await get('/members/mem_nobody')).status).toBe(404);
  });

  it.each([
    ['/members?limit=0', 'invalid_query'],
    ['/members?limit=201', 'invalid_query'],
    ['/members?limit=ten', 'invalid_query'],
    ['/members?state=sleeping', 'invalid_query'],
    ['/members?cursor=not-hex', 'invalid_cursor'],
    [`/members?cursor=${Buffer.from('{"q":1}').toString('hex')}`, 'invalid_cursor'],
    [`/members?cursor=${Buffer.from('{"p":"{]"}').toString('hex')}`, 'invalid_cursor'],
    ['/keys?state=lost', 'invalid_query'],
    ['/keys?memberId=a%20b', 'invalid_query'],
    ['/connections?state=on', 'invalid_query'],
    [`/connections?cursor=${Buffer.from('{"p":"con_nobody"}').toString('hex')}`, 'invalid_cursor'],
  ])('answers 400 for %s', async (path, code) => {
    const answer = await get(path);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(code);
  });
});

describe('GET /admin/v1/keys and /connections', () => {
  it('pages a member’s keys, reports expired keys as expired, and filters by state and name', async () => {
    const memberId = await gateway.admin.createMember();
    const created: { id: string; key: string }[] = [];
    for (let index = 0; index < 5; index++) created.push(await gateway.admin.createKey(memberId));
    await gateway.admin.call('POST', `/keys/${created[1]?.id}/revoke`);
    await gateway.admin.call('POST', `/keys/${created[2]?.id}/update`, {
      version: 1,
      name: 'old laptop',
      expiresAt: '2001-01-01T00:00:00Z',
    });
    const all = await walk(`/keys?memberId=${memberId}`, 'keys', 2);
    expect(all.map((key) => key.id)).toEqual(created.map((key) => key.id));
    const states = await get(`/keys?memberId=${memberId}&state=expired`);
    expect(states.body.keys).toEqual([expect.objectContaining({ id: created[2]?.id, state: 'expired' })]);
    expect((await get(`/keys?memberId=${memberId}&state=revoked`)).body.keys).toHaveLength(1);
    expect((await get(`/keys?memberId=${memberId}&state=active`)).body.keys).toHaveLength(3);
    expect((await get(`/keys?memberId=${memberId}&name=LAPTOP`)).body.keys).toHaveLength(1);
    const team = await walk('/keys?state=expired', 'keys', 1);
    expect(team.some((key) => key.id === created[2]?.id)).toBe(true);
  });

  it('pages connections and filters them by provider or id and by state', async () => {
    const id = await gateway.admin.createConnection({
      provider: 'omega',
      wire: 'openai-chat',
      baseUrl: `${fixture.upstream.url}/v1`,
    });
    await gateway.admin.call('POST', `/connections/${id}/disable`);
    expect((await get('/connections?name=OMEGA')).body.connections).toEqual([
      expect.objectContaining({ id, enabled: false, version: 2 }),
    ]);
    expect((await get(`/connections?name=${id}&state=enabled`)).body.connections).toEqual([]);
    const all = await walk('/connections', 'connections', 1);
    expect(all.map((connection) => connection.id)).toContain(id);
    expect(all.length).toBe(new Set(all.map((connection) => connection.id)).size);
  });
});
