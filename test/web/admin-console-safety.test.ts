import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { launchChromium } from './browser.ts';
import { desktop } from './console-helpers.ts';

const payloads = {
  html: '<img src=x onerror="window.__injected=1">',
  script: '<script>window.__injected=2</script>',
  formula: '=HYPERLINK("http://evil.example","x")',
};

let browser: Browser;
let gateway: TestGateway;
let page: Page;
const errors: string[] = [];
const pageEvents: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  gateway = await startTestGateway();
  // Names from the store carrying markup, script and spreadsheet formulas, in every list the console shows.
  for (const [kind, payload] of Object.entries(payloads)) {
    const memberId = await gateway.admin.call<{ member: { id: string } }>('POST', '/members', {
      name: `${kind} ${payload}`,
    });
    await gateway.admin.call('POST', '/keys', { memberId: memberId.member.id, name: `${kind} ${payload}` });
  }
  await gateway.admin.createConnection({
    provider: 'payloads',
    wire: 'openai-chat',
    baseUrl: 'http://127.0.0.1:9/v1',
    models: Object.values(payloads),
  });
  const context = await browser.newContext({ viewport: desktop });
  page = await context.newPage();
  // What the page saw, printed only when a test fails: which keys reached which element, and when.
  await page.addInitScript(`
    for (const type of ['keydown', 'keyup', 'click', 'submit', 'cancel', 'close', 'focusin']) {
      document.addEventListener(type, (event) => {
        const key = event instanceof KeyboardEvent ? ' ' + event.key : '';
        const target = event.target;
        console.debug('page-event ' + performance.now().toFixed(0) + ' ' + type + key + ' <' + target?.tagName + '> ' +
          (target?.textContent ?? '').slice(0, 24));
      }, true);
    }
  `);
  page.on('console', (message) => {
    if (message.text().startsWith('page-event')) pageEvents.push(message.text());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

async function openView(name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}

// The focused element's label when it has one, else its text.
const focused = () =>
  page.evaluate<string>(
    'document.activeElement?.labels?.[0]?.textContent ?? document.activeElement?.textContent ?? ""',
  );
// Read in one evaluation: a locator's own reads wait for the element, which is the race being watched.
const dialogState = () =>
  page.evaluate<string>(`(() => {
    const open = document.querySelector('dialog');
    return open ? 'open: ' + open.innerText : 'closed';
  })()`);
const stepTimeout = { timeout: 20_000 };

describe('the admin console, safe by construction', () => {
  it('is served with the strict CSP, never framed, and keeps the key out of the address', async () => {
    const response = await fetch(`${gateway.url}/app/admin`);
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/\sstyle=/);
    for (const asset of ['admin.js', 'styles.css']) {
      expect((await fetch(`${gateway.url}/app/admin/${asset}`)).status).toBe(200);
    }
  });

  it('shows store values with markup, script and formulas as inert text', async () => {
    await page.goto(`${gateway.url}/app/admin`);
    await page.getByLabel('Gateway key').fill(gateway.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('rowheader', { name: /^html / }).waitFor();
    expect(page.url()).toBe(`${gateway.url}/app/admin`);
    for (const [kind, payload] of Object.entries(payloads)) {
      expect(await page.getByRole('rowheader', { name: new RegExp(`^${kind} `) }).textContent()).toContain(payload);
    }
    await openView('Keys');
    await page.getByRole('rowheader', { name: /^script / }).waitFor();
    expect(await page.getByRole('rowheader', { name: /^script / }).textContent()).toContain(payloads.script);
    await openView('Connections');
    const models = page.getByRole('row').filter({ hasText: 'payloads' }).locator('td[title]');
    expect(await models.getAttribute('title')).toBe(Object.values(payloads).join(', '));
    // Nothing was parsed as markup: no element came from a name, and no script ran.
    expect(await page.locator('img, main script').count()).toBe(0);
    expect(await page.evaluate<unknown>('window.__injected')).toBeUndefined();
    expect(errors.filter((error) => !/40[14]/.test(error))).toEqual([]);
  });

  it('is usable with the keyboard alone: a form opens, Escape closes it, focus returns', async () => {
    onTestFailed(() => console.log(pageEvents.join('\n')));
    await openView('Members');
    const dialog = page.getByRole('dialog');
    // Each step waits for the state it acts on and names what it found when it is not there, so a slow machine
    // waits longer and a failure says which step went wrong (a key pressed on the wrong element would otherwise
    // leave the test waiting for a dialog until its timeout).

    await page.getByRole('button', { name: 'Create member' }).focus();
    await expect.poll(focused, stepTimeout).toBe('Create member');
    await page.keyboard.press('Enter');
    await dialog.waitFor(stepTimeout);
    // The dialog takes focus; typing goes into its first field, Tab moves through it.
    await expect.poll(focused, stepTimeout).toBe('Name');
    await page.keyboard.type('Keyboard Kim');
    expect(await dialog.getByLabel('Name').inputValue()).toBe('Keyboard Kim');
    await page.keyboard.press('Escape');
    await expect.poll(dialogState, stepTimeout).toBe('closed');
    await expect.poll(focused, stepTimeout).toBe('Create member');

    // Again, submitting with Enter from a field.
    await page.keyboard.press('Enter');
    await dialog.waitFor(stepTimeout);
    await expect.poll(focused, stepTimeout).toBe('Name');
    await page.keyboard.type('Keyboard Kim');
    expect(await dialog.getByLabel('Name').inputValue()).toBe('Keyboard Kim');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type('5000');
    expect(await dialog.getByLabel('Daily tokens').inputValue()).toBe('5000');
    await page.keyboard.press('Enter');
    await expect.poll(dialogState, stepTimeout).toBe('closed');
    await page.getByRole('rowheader', { name: /^Keyboard Kim/ }).waitFor(stepTimeout);

    // A destructive action asks first; Escape cancels it and nothing changes.
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^Keyboard Kim/ }) });
    await row.getByRole('button', { name: 'Disable' }).focus();
    await expect.poll(focused, stepTimeout).toBe('Disable');
    await page.keyboard.press('Enter');
    await dialog.waitFor(stepTimeout);
    expect(await dialog.textContent()).toContain('Disable Keyboard Kim?');
    await page.keyboard.press('Escape');
    await expect.poll(dialogState, stepTimeout).toBe('closed');
    expect(await row.locator('.state-badge').textContent()).toBe('active');
  }, 90_000);

  it('takes a form down at Escape, not at the close event the browser sends after it', async () => {
    onTestFailed(() => console.log(pageEvents.join('\n')));
    await openView('Members');
    const dialog = page.getByRole('dialog');
    // Every dialog's close event held back, as a busy browser may deliver it after the next key: the form must be
    // gone at Escape all the same, and the next Enter must open one that stays open.
    await page.evaluate(`(() => {
      window.__holdClose = (event) => event.stopImmediatePropagation();
      document.addEventListener('close', window.__holdClose, true);
    })()`);
    try {
      await page.getByRole('button', { name: 'Create member' }).focus();
      await page.keyboard.press('Enter');
      await dialog.waitFor(stepTimeout);
      await expect.poll(focused, stepTimeout).toBe('Name');
      await page.keyboard.press('Escape');
      await expect.poll(dialogState, stepTimeout).toBe('closed');
      await expect.poll(focused, stepTimeout).toBe('Create member');
      await page.keyboard.press('Enter');
      await dialog.waitFor(stepTimeout);
      expect(await dialogState()).toMatch(/^open: Create member/);
      await page.keyboard.press('Escape');
      await expect.poll(dialogState, stepTimeout).toBe('closed');
    } finally {
      await page.evaluate(`document.removeEventListener('close', window.__holdClose, true)`);
    }
  });
});

/**
 * Sign-in by SSO (§B of the lead's contract): a gateway without SSO configured (here) says so, or answers 404
 * where the endpoint is not served, and the console shows no SSO button. The session answer is then stood in for
 * with a routed reply, to check what the console sends with a session: the cookie and `x-gateway-console`, never
 * an Authorization header (the test gateway has no identity provider to sign in with).
 */
describe('the admin console with SSO', () => {
  it('offers SSO only when the gateway has it, and sends session requests with the console header', async () => {
    const context = await browser.newContext({ viewport: desktop });
    const ssoPage = await context.newPage();
    await ssoPage.goto(`${gateway.url}/app/admin`);
    await ssoPage.getByLabel('Gateway key').waitFor();
    expect(await ssoPage.getByRole('button', { name: 'Sign in with SSO' }).count()).toBe(0);

    await context.addCookies([{ name: 'gateway-session', value: 'opaque', url: gateway.url }]);
    await ssoPage.route('**/app/auth/session', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          sso: { enabled: true },
          signedIn: true,
          member: { id: 'mem_x', name: 'X', role: 'admin' },
        }),
      }),
    );
    const sent: Record<string, string>[] = [];
    ssoPage.on('request', (request) => {
      if (request.url().includes('/usage-api/v1/') || request.url().includes('/admin/v1/'))
        sent.push(request.headers());
    });
    await ssoPage.reload();
    // The gateway here has no session endpoint, so it refuses the cookie: the console falls back to its sign-in.
    await ssoPage.getByRole('alert').waitFor();
    expect(sent.length).toBeGreaterThan(0);
    for (const headers of sent) {
      expect(headers['x-gateway-console']).toBe('1');
      expect(headers['authorization']).toBeUndefined();
      expect(headers['cookie']).toContain('gateway-session=opaque');
    }
    await ssoPage.unroute('**/app/auth/session');
    await ssoPage.route('**/app/auth/session', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ sso: { enabled: true }, signedIn: false }),
      }),
    );
    await ssoPage.reload();
    const sso = ssoPage.getByRole('button', { name: 'Sign in with SSO' });
    await sso.waitFor();
    const [login] = await Promise.all([ssoPage.waitForRequest('**/app/auth/login'), sso.click()]);
    expect(new URL(login.url()).pathname).toBe('/app/auth/login');
    await context.close();
  });
});

describe('the admin console for a member who is not an administrator', () => {
  it('lands on their own page, with no administration views, even when an admin view is asked for', async () => {
    const member = await gateway.admin.createMemberWithKey({ dailyTokens: 10_000 });
    const context = await browser.newContext({ viewport: desktop });
    const memberPage = await context.newPage();
    await memberPage.goto(`${gateway.url}/app/admin#members`);
    await memberPage.getByLabel('Gateway key').fill(member.key);
    await memberPage.getByRole('button', { name: 'Sign in' }).click();
    const navigation = memberPage.getByRole('navigation', { name: 'Console' });
    await navigation.getByRole('link', { name: 'My page' }).waitFor();
    expect(await navigation.getByRole('link').allTextContents()).toEqual(['My page', 'Usage']);
    expect(await memberPage.getByRole('heading', { level: 1, name: 'Members' }).count()).toBe(0);
    expect(await memberPage.getByRole('button', { name: 'Create member' }).count()).toBe(0);
    await context.close();
  });
});
