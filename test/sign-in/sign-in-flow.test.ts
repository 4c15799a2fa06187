import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeOnEveryWire, useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import { type CookieJar, signIn } from '../support/sign-in-driver.ts';
import { startTestIdentityProvider, type TestIdentityProvider } from '../support/test-identity-provider.ts';

/**
 * The whole sign-in over HTTP against a real OpenID provider (oidc-provider, in process): the gateway's login
 * redirect, the provider's authorization endpoint and login, the callback with the code, the token endpoint, the
 * ID token verified against the provider's keys, and the gateway's own session after it, on the admin API, the
 * usage API and sign-out. Keys stay keys: the SDK calls with a gateway key, and disabling the member stops both.
 */
const environment: Record<string, string> = {};
let provider: TestIdentityProvider;
beforeAll(async () => {
  provider = await startTestIdentityProvider();
  Object.assign(environment, {
    GATEWAY_OIDC_ISSUER: provider.issuer,
    GATEWAY_OIDC_CLIENT_ID: provider.clientId,
    GATEWAY_OIDC_CLIENT_SECRET: provider.clientSecret,
    GATEWAY_OIDC_SCOPES: 'openid email profile groups',
    GATEWAY_OIDC_ADMIN_GROUPS: 'gateway-admins',
    GATEWAY_OIDC_EMAIL_DOMAINS: 'example.com',
    GATEWAY_OIDC_UNKNOWN_PEOPLE: 'create-member',
  });
});
const fixture = useGatewayFixture({ environment, connections: acmeOnEveryWire });
beforeAll(() => {
  provider.registerGateway(`${fixture.gateway.url}/app/auth/callback`);
  provider.people.set('sub-ada', {
    email: 'ada@example.com',
    email_verified: true,
    name: 'Ada',
    groups: ['gateway-admins'],
  });
  provider.people.set('sub-bob', { email: 'Bob@Example.com', email_verified: true, name: 'Bob', groups: ['staff'] });
});
afterAll(async () => provider?.close());

const consoleHeaders = (jar: CookieJar) => ({ cookie: jar.header(), 'x-gateway-console': '1' });

async function signInAs(subject: string) {
  provider.signInAs(subject);
  return signIn(fixture.gateway.url);
}

describe('sign-in with the team provider', () => {
  it('tells the console sign-in is enabled and nobody is signed in yet', async () => {
    const response = await fetch(`${fixture.gateway.url}/app/auth/session`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ sso: { enabled: true }, signedIn: false });
  });

  it('sends the browser to the provider with PKCE, state and nonce, and binds the sign-in to that browser', async () => {
    const response = await fetch(`${fixture.gateway.url}/app/auth/login`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '');
    expect(`${location.origin}`).toBe(provider.issuer);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    for (const parameter of ['code_challenge', 'state', 'nonce']) {
      expect(location.searchParams.get(parameter)?.length).toBeGreaterThanOrEqual(43);
    }
    expect(location.searchParams.get('redirect_uri')).toBe(`${fixture.gateway.url}/app/auth/callback`);
    expect(location.searchParams.get('scope')).toBe('openid email profile groups');
    const [cookie = ''] = response.headers.getSetCookie();
    expect(cookie).toMatch(/^gateway-sign-in=[0-9a-f]{64}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
  });

  it('signs an administrator in by group: an HttpOnly SameSite=Strict session, no token in any URL after the callback', async () => {
    const { jar, answer } = await signInAs('sub-ada');
    expect(answer.status).toBe(302);
    expect(answer.location).toBe('/app/admin');
    const session = answer.setCookies.find((line) => line.startsWith('gateway-session='));
    // http://127.0.0.1 (npm start): no Secure, which a browser would refuse over http; over https it is Secure and __Host-.
    expect(session).toMatch(/^gateway-session=gws_[0-9a-f]{64}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    const state = await (
      await fetch(`${fixture.gateway.url}/app/auth/session`, { headers: { cookie: jar.header() } })
    ).json();
    expect(state).toMatchObject({
      sso: { enabled: true },
      signedIn: true,
      member: { name: 'ada@example.com', role: 'admin' },
    });
    const members = await fetch(`${fixture.gateway.url}/admin/v1/members`, { headers: consoleHeaders(jar) });
    expect(members.status).toBe(200);
  });

  it('accepts the session cookie only with the console header (the CSRF guard), and only on the APIs', async () => {
    const { jar } = await signInAs('sub-ada');
    const withoutHeader = await fetch(`${fixture.gateway.url}/admin/v1/members`, { headers: { cookie: jar.header() } });
    expect(withoutHeader.status).toBe(403);
    expect(((await withoutHeader.json()) as { error: { code: string } }).error.code).toBe('console_header_required');
    const inference = await fetch(`${fixture.gateway.url}/v1/models`, { headers: consoleHeaders(jar) });
    expect(inference.status).toBe(401);
  });

  it('makes a person in no admin group a member with the team defaults, who cannot administer but reads their usage', async () => {
    const { jar, answer } = await signInAs('sub-bob');
    expect(answer.status).toBe(302);
    const state = (await (
      await fetch(`${fixture.gateway.url}/app/auth/session`, { headers: { cookie: jar.header() } })
    ).json()) as { member: { id: string; role: string; name: string } };
    expect(state.member).toMatchObject({ role: 'member', name: 'bob@example.com' });
    const admin = await fetch(`${fixture.gateway.url}/admin/v1/members`, { headers: consoleHeaders(jar) });
    expect(admin.status).toBe(403);
    const usage = await fetch(`${fixture.gateway.url}/usage-api/v1/keys`, { headers: consoleHeaders(jar) });
    expect(usage.status).toBe(200);
    // A second sign-in finds the same member by the provider's subject.
    const again = await signInAs('sub-bob');
    const second = (await (
      await fetch(`${fixture.gateway.url}/app/auth/session`, { headers: { cookie: again.jar.header() } })
    ).json()) as { member: { id: string } };
    expect(second.member.id).toBe(state.member.id);
  });

  it('keeps keys as keys, and disabling the member stops both its session and its key at once', async () => {
    const { jar } = await signInAs('sub-bob');
    const { member } = (await (
      await fetch(`${fixture.gateway.url}/app/auth/session`, { headers: { cookie: jar.header() } })
    ).json()) as { member: { id: string } };
    const key = await fixture.gateway.admin.createKey(member.id);
    const openai = openaiClient(fixture.gateway, key.key);
    const completion = await openai.chat.completions.create({
      model: 'acme/acme-1',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(completion.choices[0]?.message).toBeDefined();

    const ada = await signInAs('sub-ada');
    const disabled = await fetch(`${fixture.gateway.url}/admin/v1/members/${member.id}/disable`, {
      method: 'POST',
      headers: consoleHeaders(ada.jar),
    });
    expect(disabled.status).toBe(200);

    const session = await fetch(`${fixture.gateway.url}/usage-api/v1/keys`, { headers: consoleHeaders(jar) });
    expect(session.status).toBe(403);
    expect(((await session.json()) as { error: { code: string } }).error.code).toBe('member_disabled');
    await expect(
      openai.chat.completions.create({ model: 'acme/acme-1', messages: [{ role: 'user', content: 'hello' }] }),
    ).rejects.toMatchObject({ status: 403 });
    // And the disabled member cannot sign in again.
    provider.signInAs('sub-bob');
    const refused = await signIn(fixture.gateway.url);
    expect(refused.answer.status).toBe(403);
    expect(JSON.parse(refused.answer.body).error.code).toBe('member_disabled');
    await fetch(`${fixture.gateway.url}/admin/v1/members/${member.id}/enable`, {
      method: 'POST',
      headers: consoleHeaders(ada.jar),
    });
  });

  it('signs out: the session is deleted and the cookie cleared', async () => {
    const { jar } = await signInAs('sub-ada');
    const refusedWithoutHeader = await fetch(`${fixture.gateway.url}/app/auth/logout`, {
      method: 'POST',
      headers: { cookie: jar.header() },
    });
    expect(refusedWithoutHeader.status).toBe(400);
    const cookie = jar.header();
    const out = await fetch(`${fixture.gateway.url}/app/auth/logout`, { method: 'POST', headers: consoleHeaders(jar) });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toMatch(/^gateway-session=; Path=\/; Max-Age=0/);
    const after = await fetch(`${fixture.gateway.url}/admin/v1/members`, {
      headers: { cookie, 'x-gateway-console': '1' },
    });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe('invalid_session');
  });

  it('records sign-ins, refusals and sign-outs in the audit log, with no token, code or session id', async () => {
    const { entries } = await fixture.gateway.admin.call<{ entries: Array<Record<string, unknown>> }>(
      'GET',
      '/audit?limit=200',
    );
    const actions = new Set(entries.map((entry) => entry.action));
    expect(actions).toEqual(
      new Set([
        'session.sign-in',
        'session.refused',
        'session.sign-out',
        'member.disable',
        'member.enable',
        'key.create',
        'connection.create',
      ]),
    );
    const signIn = entries.find((entry) => entry.action === 'session.sign-in');
    expect(signIn).toMatchObject({ actor: { via: 'session', keyId: null }, target: { type: 'session' } });
    const disable = entries.find((entry) => entry.action === 'member.disable');
    expect(disable).toMatchObject({ actor: { via: 'session', keyId: null } });
    expect(JSON.stringify(entries)).not.toMatch(/eyJ|gws_|code=|state=/);
  });

  it('leaves the administrator key working beside sessions', async () => {
    expect(
      (await fixture.gateway.admin.call<{ members: unknown[] }>('GET', '/members')).members.length,
    ).toBeGreaterThan(0);
  });
});
