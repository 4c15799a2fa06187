import { mkdir } from 'node:fs/promises';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { startTestIdentityProvider, type TestIdentityProvider } from '../support/test-identity-provider.ts';
import { launchChromium } from '../web/browser.ts';
import { artifacts, captureScreen, desktop } from '../web/console-helpers.ts';

/**
 * The whole sign-in in real Chromium against a real OpenID provider (oidc-provider in process), on both engines of
 * `npm start` (issue 21 item 6): an administrator presses "Sign in with SSO" on the console and sees the console; a
 * person in no admin group does the same, becomes a member (or, where unknown people are refused, reads why), creates
 * a key on their own page and calls a model with it through the official openai SDK; the administrator disables
 * that member in the console, and both the person's session and the key are refused. The session cookie is
 * HttpOnly and SameSite=Strict, readable by no script and usable by no other origin. Screens at 1440 and 390 px
 * (test-artifacts/console-sso-*.png), checked with axe.
 */
let browser: Browser;
let upstream: FakeUpstream;
beforeAll(async () => {
  browser = await launchChromium();
  await mkdir(artifacts, { recursive: true });
  upstream = await startFakeUpstream();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await upstream?.close();
});

/** A gateway signing in with its own provider, on `engine`, with the people of these tests. */
async function startSignInGateway(engine: 'sqlite' | 'dynamodb', unknownPeople: 'create-member' | 'refuse') {
  const provider = await startTestIdentityProvider();
  const gateway = await startTestGateway({
    environment: {
      GATEWAY_STORE: engine,
      GATEWAY_OIDC_ISSUER: provider.issuer,
      GATEWAY_OIDC_CLIENT_ID: provider.clientId,
      GATEWAY_OIDC_CLIENT_SECRET: provider.clientSecret,
      GATEWAY_OIDC_SCOPES: 'openid email profile groups',
      GATEWAY_OIDC_ADMIN_GROUPS: 'gateway-admins',
      GATEWAY_OIDC_UNKNOWN_PEOPLE: unknownPeople,
    },
  });
  provider.registerGateway(`${gateway.url}/app/auth/callback`);
  provider.people.set('sub-ada', {
    email: 'ada@example.com',
    email_verified: true,
    name: 'Ada',
    groups: ['gateway-admins'],
  });
  provider.people.set('sub-bob', { email: 'bob@example.com', email_verified: true, name: 'Bob', groups: ['staff'] });
  return { provider, gateway };
}

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

async function text(locator: Locator): Promise<string> {
  return (await locator.textContent())?.replace(/\s+/g, ' ').trim() ?? '';
}

describe.each(['sqlite', 'dynamodb'] as const)('sign-in with SSO in Chromium, on %s', (engine) => {
  let provider: TestIdentityProvider;
  let gateway: TestGateway;
  const screens: Record<string, { overflow: number; problems: string[] }> = {};
  const shoot = async (page: Page, name: string) => {
    if (engine === 'sqlite') screens[name] = await captureScreen(page, name);
  };

  beforeAll(async () => {
    ({ provider, gateway } = await startSignInGateway(engine, 'create-member'));
    await gateway.admin.createConnection({
      provider: 'acme',
      wire: 'openai-chat',
      models: ['acme-1'],
      baseUrl: `${upstream.url}/v1`,
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await provider?.close();
    // Every screen fits both widths without sideways scrolling and has no serious accessibility finding.
    for (const [name, screen] of Object.entries(screens))
      expect({ name, ...screen }).toEqual({ name, overflow: 0, problems: [] });
  });

  /** Opens the console and presses "Sign in with SSO" as `subject`; the provider signs them in and sends them back. */
  async function signInWithSso(subject: string, options: { shoot?: boolean } = {}) {
    const context = await browser.newContext({ viewport: desktop });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    provider.signInAs(subject);
    await page.goto(`${gateway.url}/app/admin`);
    const button = page.getByRole('button', { name: 'Sign in with SSO' });
    await button.waitFor();
    if (options.shoot) await shoot(page, 'sso-sign-in');
    await button.click();
    await page.waitForURL(`${gateway.url}/app/admin`);
    return { context, page, errors };
  }

  it('signs an administrator in with SSO: the console, its session out of reach of script and other origins', async () => {
    const { context, page, errors } = await signInWithSso('sub-ada', { shoot: true });
    try {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Members' }).waitFor();
      await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
      expect(await text(page.locator('.viewer'))).toContain('ada@example.com');
      await shoot(page, 'sso-console');

      const cookies = await context.cookies(gateway.url);
      expect(cookies.find((cookie) => cookie.name === 'gateway-session')).toMatchObject({
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
      });
      expect(cookies.some((cookie) => cookie.name === 'gateway-sign-in')).toBe(false);
      expect(await page.evaluate<string>('document.cookie')).not.toContain('gateway-session');
      // The page keeps no credential of its own: the session is the browser's cookie.
      expect(await page.evaluate<string[]>('Object.keys(sessionStorage)')).toEqual([]);
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
      }, `${gateway.url}/admin/v1/members`);
      expect(crossOrigin).toBe('blocked');

      // Sign out from the console: the sign-in screen again, the cookie gone, the session ended.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in with SSO' }).waitFor();
      expect((await context.cookies(gateway.url)).some((cookie) => cookie.name === 'gateway-session')).toBe(false);
      expect((await pageFetch(page, '/app/auth/session', { console: false })).body).toMatchObject({ signedIn: false });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('makes a person in no admin group a member with the defaults set in the console, who creates a key and calls a model, until the administrator disables them', async () => {
    // The administrator sets the team's default limits for new members in the console's Settings.
    const ada = await signInWithSso('sub-ada');
    await ada.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Settings' }).click();
    await ada.page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await ada.page.getByLabel('Daily tokens').fill('50,000');
    await ada.page.getByLabel('Requests per minute').fill('30');
    await ada.page.getByRole('button', { name: 'Save defaults' }).click();
    await ada.page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await shoot(ada.page, 'sso-settings');
    await ada.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Members' }).click();

    const bob = await signInWithSso('sub-bob');
    try {
      // Bob lands on his own page: no console views, his allowance and keys.
      await bob.page.getByRole('heading', { level: 1, name: 'bob@example.com' }).waitFor();
      expect(await bob.page.getByRole('link', { name: 'Members' }).count()).toBe(0);
      // His member was made with the defaults the administrator saved.
      expect(await text(bob.page.locator('[data-total="left"]'))).toContain('of 50,000 a day');
      const state = (await pageFetch(bob.page, '/app/auth/session', { console: false })).body as {
        member: { id: string };
      };
      const bobId = state.member.id;
      const { member } = await gateway.admin.call<{ member: { policy: object } }>('GET', `/members/${bobId}`);
      expect(member.policy).toEqual({ dailyTokens: 50_000, rpm: 30 });
      expect((await pageFetch(bob.page, '/admin/v1/members')).status).toBe(403);

      await bob.page.getByLabel('Name').fill('laptop');
      await bob.page.getByRole('button', { name: 'Create key' }).click();
      const secret = await bob.page.getByRole('textbox', { name: 'New key' }).inputValue();
      expect(secret).toMatch(/^sk-/);
      await bob.page.getByRole('rowheader', { name: /^laptop/ }).waitFor();
      await shoot(bob.page, 'sso-my-page');
      const openai = openaiClient(gateway, secret);
      const ask = () =>
        openai.chat.completions.create({ model: 'acme/acme-1', messages: [{ role: 'user', content: 'hello' }] });
      expect((await ask()).choices.length).toBe(1);

      // The administrator disables Bob in the console (the members list read again: Bob joined after it loaded).
      await ada.page.reload();
      await ada.page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
      const bobRow = ada.page
        .getByRole('row')
        .filter({ has: ada.page.getByRole('rowheader', { name: /^bob@example\.com/ }) });
      await bobRow.getByRole('button', { name: 'Disable' }).click();
      const dialog = ada.page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Yes, disable' }).click();
      await dialog.waitFor({ state: 'detached' });
      await bobRow.getByRole('button', { name: 'Enable' }).waitFor();

      // Both refused at once: Bob's session (his page's next request, and the console on reload) and his key.
      expect(await pageFetch(bob.page, '/usage-api/v1/keys')).toMatchObject({
        status: 403,
        body: { error: { code: 'member_disabled' } },
      });
      await bob.page.reload();
      await bob.page.getByRole('button', { name: 'Sign in with SSO' }).waitFor();
      await expect(ask()).rejects.toMatchObject({ status: 403 });

      // And Bob cannot sign in again: the browser shows why.
      provider.signInAs('sub-bob');
      await bob.page.getByRole('button', { name: 'Sign in with SSO' }).click();
      await bob.page.getByRole('heading', { level: 1, name: 'Sign-in refused' }).waitFor();
      expect(await text(bob.page.locator('main'))).toContain('member_disabled');
      expect(bob.errors).toEqual([]);
    } finally {
      await bob.context.close();
      await ada.context.close();
    }
  });

  it('refuses a person no member stands for where unknown people are refused, and tells them why', async () => {
    const strict = await startSignInGateway(engine, 'refuse');
    const context = await browser.newContext({ viewport: desktop });
    try {
      const page = await context.newPage();
      strict.provider.signInAs('sub-bob');
      await page.goto(`${strict.gateway.url}/app/admin`);
      await page.getByRole('button', { name: 'Sign in with SSO' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign-in refused' }).waitFor();
      expect(await text(page.locator('main'))).toContain('No member of this gateway stands for you');
      expect(await text(page.locator('main'))).toContain('unknown_person');
      await shoot(page, 'sso-refused');
      expect((await context.cookies(strict.gateway.url)).some((cookie) => cookie.name === 'gateway-session')).toBe(
        false,
      );
      // No member was made for him: the team is its bootstrap administrator alone.
      const { members } = await strict.gateway.admin.call<{ members: { name: string }[] }>('GET', '/members');
      expect(members.map((member) => member.name)).toEqual(['Administrator']);
      const { entries } = await strict.gateway.admin.call<{ entries: Array<{ after: Record<string, unknown> }> }>(
        'GET',
        '/audit?action=session.refused',
      );
      expect(entries[0]?.after).toMatchObject({ code: 'unknown_person', email: 'bob@example.com' });

      await page.getByRole('link', { name: 'Back to the sign-in page' }).click();
      await page.getByRole('button', { name: 'Sign in with SSO' }).waitFor();
    } finally {
      await context.close();
      await strict.gateway.close();
      await strict.provider.close();
    }
  });
});
