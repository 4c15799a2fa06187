import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import { type CookieJar, signIn } from '../support/sign-in-driver.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import {
  startTestIdentityProvider,
  type TestIdentityProvider,
  type TestPerson,
} from '../support/test-identity-provider.ts';

/**
 * A person's membership over time, on both engines of `npm start`: a new member made at sign-in gets the team's
 * default limits as the settings hold them when they first sign in; and a later sign-in whose verified ID token
 * says the provider no longer lets the person in (e-mail explicitly unverified, domain not allowed, in none of the
 * allowed groups) disables their member, so their keys and sessions stop at once, with an audit entry. A provider
 * refusal that names nobody, or a missing claim, refuses the sign-in and disables no one.
 */
describe.each(['sqlite', 'dynamodb'] as const)('a signed-in person’s membership, on %s', (engine) => {
  let provider: TestIdentityProvider;
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  beforeAll(async () => {
    provider = await startTestIdentityProvider();
    upstream = await startFakeUpstream();
    gateway = await startTestGateway({
      environment: {
        GATEWAY_STORE: engine,
        GATEWAY_OIDC_ISSUER: provider.issuer,
        GATEWAY_OIDC_CLIENT_ID: provider.clientId,
        GATEWAY_OIDC_CLIENT_SECRET: provider.clientSecret,
        GATEWAY_OIDC_SCOPES: 'openid email profile groups',
        GATEWAY_OIDC_ADMIN_GROUPS: 'gateway-admins',
        GATEWAY_OIDC_ALLOWED_GROUPS: 'staff',
        GATEWAY_OIDC_EMAIL_DOMAINS: 'example.com',
        GATEWAY_OIDC_UNKNOWN_PEOPLE: 'create-member',
      },
    });
    provider.registerGateway(`${gateway.url}/app/auth/callback`);
    await gateway.admin.createConnection({
      provider: 'acme',
      wire: 'openai-chat',
      models: ['acme-1'],
      baseUrl: `${upstream.url}/v1`,
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
    await provider?.close();
  });
  const fixture = {
    get gateway() {
      return gateway;
    },
  };

  const consoleHeaders = (jar: CookieJar) => ({ cookie: jar.header(), 'x-gateway-console': '1' });
  const errorCode = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

  async function signInAs(subject: string) {
    provider.signInAs(subject);
    return signIn(fixture.gateway.url);
  }

  async function memberOf(jar: CookieJar): Promise<string> {
    const response = await fetch(`${fixture.gateway.url}/app/auth/session`, { headers: { cookie: jar.header() } });
    const state = (await response.json()) as { member?: { id: string } };
    if (!state.member) throw new Error('not signed in');
    return state.member.id;
  }

  async function readMember(id: string) {
    return (await fixture.gateway.admin.call<{ member: { status: string; policy: object } }>('GET', `/members/${id}`))
      .member;
  }

  /** A person signs in (a member made for them), issues their own key on their page and calls a model with it. */
  async function memberWithWorkingKey(subject: string, person: TestPerson) {
    provider.people.set(subject, person);
    const first = await signInAs(subject);
    expect(first.answer.status).toBe(302);
    const memberId = await memberOf(first.jar);
    const issued = await fetch(`${fixture.gateway.url}/admin/v1/me/keys`, {
      method: 'POST',
      headers: { ...consoleHeaders(first.jar), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'laptop' }),
    });
    expect(issued.status).toBe(201);
    // `POST /me/keys` answers as `POST /keys` does: the key's fields, its secret as `key`.
    const { key: secret } = (await issued.json()) as { key: string };
    const openai = openaiClient(fixture.gateway, secret);
    const ask = () =>
      openai.chat.completions.create({ model: 'acme/acme-1', messages: [{ role: 'user', content: 'hello' }] });
    expect((await ask()).choices.length).toBe(1);
    return { memberId, jar: first.jar, ask };
  }

  it('gives a new member the team’s default limits as the settings hold them when the person first signs in', async () => {
    const { settings } = await fixture.gateway.admin.call<{ settings: { version: number } }>('GET', '/settings');
    const defaultPolicy = { dailyTokens: 25_000, rpm: 7, concurrency: 2, models: ['acme/acme-1'] };
    await fixture.gateway.admin.call('POST', '/settings/update', { version: settings.version, defaultPolicy });
    provider.people.set('sub-dora', {
      email: 'dora@example.com',
      email_verified: true,
      name: 'Dora',
      groups: ['staff'],
    });
    const dora = await signInAs('sub-dora');
    expect(dora.answer.status).toBe(302);
    const member = await readMember(await memberOf(dora.jar));
    expect(member.policy).toEqual(defaultPolicy);

    // An edit applies to the next new member; a member already made keeps what it was given.
    const now = await fixture.gateway.admin.call<{ settings: { version: number } }>('GET', '/settings');
    await fixture.gateway.admin.call('POST', '/settings/update', {
      version: now.settings.version,
      defaultPolicy: { dailyTokens: 1_000 },
    });
    provider.people.set('sub-emil', {
      email: 'emil@example.com',
      email_verified: true,
      name: 'Emil',
      groups: ['staff'],
    });
    const emil = await signInAs('sub-emil');
    expect((await readMember(await memberOf(emil.jar))).policy).toEqual({ dailyTokens: 1_000 });
    expect((await readMember(await memberOf(dora.jar))).policy).toEqual(defaultPolicy);
    await fixture.gateway.admin.call('POST', '/settings/update', {
      version: now.settings.version + 1,
      defaultPolicy: {},
    });
  });

  const removals: { code: string; change: (person: TestPerson) => TestPerson }[] = [
    { code: 'email_unverified', change: (person) => ({ ...person, email_verified: false }) },
    {
      code: 'email_domain_refused',
      change: (person) => ({ ...person, email: person.email.replace('@example.com', '@elsewhere.org') }),
    },
    { code: 'group_refused', change: (person) => ({ ...person, groups: ['alumni'] }) },
  ];

  it.each(removals)(
    'disables the member whose next sign-in is refused with $code: its key and session stop, audited',
    async ({ code, change }) => {
      const subject = `sub-${code}`;
      const person = {
        email: `${code.replaceAll('_', '-')}@example.com`,
        email_verified: true,
        name: code,
        groups: ['staff'],
      };
      const { memberId, jar, ask } = await memberWithWorkingKey(subject, person);

      provider.people.set(subject, change(person));
      const refused = await signInAs(subject);
      expect(refused.answer.status).toBe(403);
      expect(errorCode(refused.answer.body)).toBe(code);
      expect(refused.jar.cookies.has('gateway-session')).toBe(false);

      expect((await readMember(memberId)).status).toBe('disabled');
      await expect(ask()).rejects.toMatchObject({ status: 403 });
      const session = await fetch(`${fixture.gateway.url}/usage-api/v1/keys`, { headers: consoleHeaders(jar) });
      expect(session.status).toBe(403);
      expect(errorCode(await session.text())).toBe('member_disabled');

      const { entries } = await fixture.gateway.admin.call<{ entries: Array<Record<string, unknown>> }>(
        'GET',
        `/audit?target=${memberId}&action=member.disable`,
      );
      expect(entries).toEqual([
        expect.objectContaining({
          actor: { memberId: '', keyId: null, via: 'session' },
          target: { type: 'member', id: memberId },
          before: expect.objectContaining({ status: 'active' }),
          after: expect.objectContaining({ status: 'disabled', reason: `sign-in refused: ${code}` }),
        }),
      ]);
      const refusals = await fixture.gateway.admin.call<{ entries: Array<{ after: Record<string, unknown> }> }>(
        'GET',
        '/audit?action=session.refused&limit=1',
      );
      expect(refusals.entries[0]?.after).toMatchObject({ code, memberId, subject });

      // Restored at the provider, the person is still refused until an administrator enables the member.
      provider.people.set(subject, person);
      const again = await signInAs(subject);
      expect(errorCode(again.answer.body)).toBe('member_disabled');
    },
  );

  it('disables no one for a provider refusal that names nobody, or a claim the provider did not send', async () => {
    const person = { email: 'fay@example.com', email_verified: true, name: 'Fay', groups: ['staff'] };
    const { memberId, ask } = await memberWithWorkingKey('sub-fay', person);

    provider.refuseNextSignIn();
    const denied = await signInAs('sub-fay');
    expect(denied.answer.status).toBe(403);
    expect(errorCode(denied.answer.body)).toBe('provider_refused');

    const { email_verified: _dropped, ...withoutClaim } = person;
    provider.people.set('sub-fay', withoutClaim as TestPerson);
    const missing = await signInAs('sub-fay');
    expect(missing.answer.status).toBe(403);
    expect(errorCode(missing.answer.body)).toBe('email_verification_missing');

    expect((await readMember(memberId)).status).toBe('active');
    expect((await ask()).choices.length).toBe(1);
  });
});
