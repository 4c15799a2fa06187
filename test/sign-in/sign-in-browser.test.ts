import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeOnEveryWire, useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import { startTestIdentityProvider, type TestIdentityProvider } from '../support/test-identity-provider.ts';
import { launchChromium } from '../web/browser.ts';

/**
 * The sign-in in real Chromium: the browser goes from the gateway to the provider and back, holds the session
 * cookie as the gateway set it (HttpOnly, SameSite=Strict: script cannot read it), and the page's same-origin
 * requests with `x-gateway-console: 1` use it; a page of another origin cannot. The console page itself is the
 * `console` branch's: until it is on main, the browser lands on `/app/admin` and the page's requests are made
 * from there as the console makes them (CONTRACTS §B).
 */
const environment: Record<string, string> = {};
let provider: TestIdentityProvider;
let browser: Browser;
beforeAll(async () => {
  provider = await startTestIdentityProvider();
  Object.assign(environment, {
    GATEWAY_OIDC_ISSUER: provider.issuer,
    GATEWAY_OIDC_CLIENT_ID: provider.clientId,
    GATEWAY_OIDC_CLIENT_SECRET: provider.clientSecret,
    GATEWAY_OIDC_SCOPES: 'openid email profile groups',
    GATEWAY_OIDC_ADMIN_GROUPS: 'gateway-admins',
    GATEWAY_OIDC_UNKNOWN_PEOPLE: 'create-member',
  });
  browser = await launchChromium();
}, 60_000);
const fixture = useGatewayFixture({ environment, connections: acmeOnEveryWire });
beforeAll(() => {
  provider.registerGateway(`${fixture.gateway.url}/app/auth/callback`);
  provider.people.set('sub-ada', {
    email: 'ada@example.com',
    email_verified: true,
    name: 'Ada',
    groups: ['gateway-admins'],
  });
  provider.people.set('sub-bob', { email: 'bob@example.com', email_verified: true, name: 'Bob', groups: [] });
});
afterAll(async () => {
  await browser?.close();
  await provider?.close();
});

/** A fetch made by the page, as the console makes it: same origin, the console header, the cookie sent by the browser. */
function pageFetch(page: Page, path: string, init: { method?: string; console?: boolean } = {}) {
  return page.evaluate(
    async ({ path, method, withHeader }) => {
      const response = await fetch(path, {
        method,
        credentials: 'same-origin',
        headers: withHeader ? { 'x-gateway-console': '1' } : {},
      });
      return { status: response.status, body: await response.json() };
    },
    { path, method: init.method ?? 'GET', withHeader: init.console ?? true },
  );
}

async function signInInBrowser(subject: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  provider.signInAs(subject);
  await page.goto(`${fixture.gateway.url}/app/auth/login`);
  return { context, page };
}

describe('sign-in in Chromium', () => {
  it('signs an administrator in from the console page and shows the console', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      provider.signInAs('sub-ada');
      await page.goto(`${fixture.gateway.url}/app/admin`);
      await page.getByRole('button', { name: 'Sign in with SSO' }).click();
      await page.getByRole('link', { name: 'Members' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/admin');
    } finally {
      await context.close();
    }
  });

  it('signs an administrator in and keeps the session out of script and other origins', async () => {
    const { context, page } = await signInInBrowser('sub-ada');
    try {
      expect(page.url()).toBe(`${fixture.gateway.url}/app/admin`);
      const cookies = await context.cookies(fixture.gateway.url);
      const session = cookies.find((cookie) => cookie.name === 'gateway-session');
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
      expect(cookies.some((cookie) => cookie.name === 'gateway-sign-in')).toBe(false);
      expect(await page.evaluate<string>('document.cookie')).not.toContain('gateway-session');

      expect(await pageFetch(page, '/app/auth/session', { console: false })).toMatchObject({
        status: 200,
        body: { signedIn: true, member: { role: 'admin', name: 'ada@example.com' } },
      });
      expect((await pageFetch(page, '/admin/v1/members')).status).toBe(200);
      expect((await pageFetch(page, '/admin/v1/members', { console: false })).status).toBe(403);

      // A page of another origin (the provider's, a different port of the same host: same-site, so SameSite alone
      // would not stop it): with the header the browser must ask first, and the gateway grants no CORS.
      const other = await context.newPage();
      await other.goto(`${provider.issuer}/.well-known/openid-configuration`);
      const crossOrigin = await other.evaluate(async (url) => {
        try {
          await fetch(url, { credentials: 'include', headers: { 'x-gateway-console': '1' } });
          return 'answered';
        } catch {
          return 'blocked';
        }
      }, `${fixture.gateway.url}/admin/v1/members`);
      expect(crossOrigin).toBe('blocked');

      const out = await pageFetch(page, '/app/auth/logout', { method: 'POST' });
      expect(out.status).toBe(200);
      expect((await context.cookies(fixture.gateway.url)).some((cookie) => cookie.name === 'gateway-session')).toBe(
        false,
      );
      expect((await pageFetch(page, '/app/auth/session', { console: false })).body).toMatchObject({ signedIn: false });
    } finally {
      await context.close();
    }
  });

  it('makes a person in no admin group a member, whose key works until the administrator disables them', async () => {
    const bob = await signInInBrowser('sub-bob');
    const ada = await signInInBrowser('sub-ada');
    try {
      const state = await pageFetch(bob.page, '/app/auth/session', { console: false });
      expect(state.body).toMatchObject({ signedIn: true, member: { role: 'member', name: 'bob@example.com' } });
      const memberId = (state.body as { member: { id: string } }).member.id;
      expect((await pageFetch(bob.page, '/admin/v1/members')).status).toBe(403);
      expect((await pageFetch(bob.page, '/usage-api/v1/keys')).status).toBe(200);

      const key = await fixture.gateway.admin.createKey(memberId);
      const openai = openaiClient(fixture.gateway, key.key);
      const ask = () =>
        openai.chat.completions.create({ model: 'acme/acme-1', messages: [{ role: 'user', content: 'hi' }] });
      expect((await ask()).choices.length).toBe(1);

      expect((await pageFetch(ada.page, `/admin/v1/members/${memberId}/disable`, { method: 'POST' })).status).toBe(200);
      expect(await pageFetch(bob.page, '/usage-api/v1/keys')).toMatchObject({
        status: 403,
        body: { error: { code: 'member_disabled' } },
      });
      await expect(ask()).rejects.toMatchObject({ status: 403 });
    } finally {
      await bob.context.close();
      await ada.context.close();
    }
  });
});
