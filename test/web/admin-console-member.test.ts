import { mkdir } from 'node:fs/promises';
import type OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { launchChromium } from './browser.ts';
import {
  accessibilityProblems,
  artifacts,
  captureScreen,
  confirm,
  desktop,
  openConsole,
  openView,
  row,
  signIn,
  text,
} from './console-helpers.ts';

/**
 * The console in Chromium, on both engines, beyond the administrator's walk-through (admin-console.test.ts): a
 * member on their own page, two administrators saving the same member (the 409 and "Reload"), and lists long
 * enough to need a second page, filtered by name and state.
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

/**
 * Does what changes a list (a filter, "Load more") and waits for the list's answer to the request it makes: rows
 * alone cannot tell, since the list before may show as many rows, all matching.
 */
async function listAnswer(page: Page, query: string, act: () => Promise<unknown>): Promise<void> {
  const answered = page.waitForResponse((response) => {
    const url = new URL(response.url());
    return /\/admin\/v1\/(members|keys)$/.test(url.pathname) && url.search.includes(query);
  });
  await act();
  await answered;
}

/** A list answers within seconds on a loaded machine (dynalite most of all); vitest's poll waits 1 s by default. */
const pollWait = { timeout: 20_000, interval: 100 };

const number = (value: string) => Number(value.replace(/,/g, ''));

/**
 * Waits until the table shows exactly `count` rows and every row's name matches: a list is only known to have
 * answered the current filters by what it shows (the list before them may have as many rows).
 */
async function waitForRows(page: Page, count: number, name: RegExp): Promise<void> {
  await expect
    .poll(async () => {
      const names = await page
        .locator('tbody tr th[scope="row"]')
        .evaluateAll((cells) => cells.map((cell) => cell.firstChild?.textContent ?? ''));
      return names.length === count && names.every((shown) => name.test(shown)) ? count : names.length;
    }, pollWait)
    .toBe(count);
}

async function totalOf(page: Page, name: 'used' | 'reserved' | 'left'): Promise<string> {
  return text(page.locator(`[data-total="${name}"] .total-value`));
}

/** Screens and axe-core findings: the screenshots are written once (SQLite's run), axe runs on both engines. */
async function checkScreen(page: Page, engine: string, name: string): Promise<void> {
  if (engine === 'sqlite') {
    const screen = await captureScreen(page, name);
    expect(screen.problems, `axe-core findings on ${name}`).toEqual([]);
    expect(screen.overflow, `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
  } else {
    expect(await accessibilityProblems(page), `axe-core findings on ${name}`).toEqual([]);
  }
}

async function statusOf(key: string, gateway: TestGateway): Promise<number> {
  return openaiClient(gateway, key, { maxRetries: 0 })
    .models.list()
    .then(() => 200)
    .catch((error: unknown) => (error as InstanceType<typeof OpenAI.APIError>).status ?? 0);
}

describe.each(['sqlite', 'dynamodb'] as const)('the console in Chromium, on %s', (engine) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ environment: { GATEWAY_STORE: engine } });
    await gateway.admin.createConnection({
      provider: 'openai',
      wire: 'openai-chat',
      baseUrl: `${upstream.url}/v1`,
      models: ['gpt-4o-mini'],
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
  });

  it('shows a member their own allowance after an SDK call and lets them create, rotate and revoke their keys', async () => {
    const { member } = await gateway.admin.call<{ member: { id: string } }>('POST', '/members', {
      name: 'Maya',
      policy: { dailyTokens: 10_000 },
    });
    const { key } = await gateway.admin.createKey(member.id);
    await openaiClient(gateway, key, { maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello there' }],
      max_tokens: 16,
    });

    const context = await browser.newContext({ viewport: desktop });
    const { page, errors } = await openConsole(context, gateway.url);
    await signIn(page, key);
    // A member lands on their own page; the administrators' views are not offered.
    await page.getByRole('heading', { level: 1, name: 'Maya' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Console' });
    expect(await nav.getByRole('link', { name: 'Members' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'My page' }).getAttribute('aria-current')).toBe('page');

    const used = number(await totalOf(page, 'used'));
    expect(used).toBeGreaterThan(0);
    expect(await totalOf(page, 'reserved')).toBe('0');
    expect(number(await totalOf(page, 'left'))).toBe(10_000 - used);
    expect(await text(page.locator('[data-total="left"] .total-detail'))).toContain('of 10,000 a day');
    // What the gateway's own view of her says, to the token.
    const me = await gateway.admin.call<{ member: { today: { used: number } } }>('GET', `/members/${member.id}`);
    expect(me.member.today.used).toBe(used);
    await checkScreen(page, engine, 'member-page');

    // A new key of her own, from the keyboard alone: the name typed, Enter submits the form.
    await page.getByRole('textbox', { name: 'Name' }).focus();
    await page.keyboard.type('phone');
    await page.keyboard.press('Enter');
    const secret = await page.getByRole('textbox', { name: 'New key' }).inputValue();
    expect(secret).toMatch(/^sk-/);
    expect(await statusOf(secret, gateway)).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);
    await row(page, 'phone').waitFor();
    expect(await text(page.getByText(/live keys/))).toContain('2 of at most 10 live keys');

    await row(page, 'phone').getByRole('button', { name: 'Rotate' }).click();
    await confirm(page, 'rotate');
    const rotated = await page.getByRole('textbox', { name: 'New key' }).inputValue();
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await statusOf(secret, gateway)).toBe(401);
    expect(await statusOf(rotated, gateway)).toBe(200);

    await row(page, 'phone').getByRole('button', { name: 'Revoke' }).click();
    await confirm(page, 'revoke');
    await row(page, 'phone').locator('.state-revoked').waitFor();
    expect(await statusOf(rotated, gateway)).toBe(401);
    // The key she signed in with still works: she is still on her page.
    expect(await statusOf(key, gateway)).toBe(200);
    await checkScreen(page, engine, 'member-page-keys');
    expect(errors.filter((error) => !/40[14]/.test(error))).toEqual([]);
    await context.close();
  }, 120_000);

  it('refuses the second of two administrators’ saves with a conflict and reloads the record as stored', async () => {
    const { member } = await gateway.admin.call<{ member: { id: string } }>('POST', '/members', {
      name: 'Noor',
      policy: { dailyTokens: 5_000, rpm: 30 },
    });
    const secondAdmin = await gateway.admin.createMember({}, 'admin');
    const { key: secondKey } = await gateway.admin.createKey(secondAdmin);

    const contexts = [await browser.newContext({ viewport: desktop }), await browser.newContext({ viewport: desktop })];
    const pages: Page[] = [];
    for (const [index, context] of contexts.entries()) {
      const { page } = await openConsole(context, gateway.url);
      await signIn(page, index === 0 ? gateway.adminKey : secondKey);
      await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
      await row(page, 'Noor').getByRole('button', { name: 'Edit' }).click();
      await page.getByRole('dialog').getByLabel('Name').waitFor();
      pages.push(page);
    }
    const [first, second] = pages as [Page, Page];

    await first.getByRole('dialog').getByLabel('Name').fill('Noor Adler');
    await first.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await first.getByRole('dialog').waitFor({ state: 'detached' });

    const dialog = second.getByRole('dialog');
    await dialog.getByLabel('Daily tokens').fill('7,500');
    await dialog.getByRole('button', { name: 'Save' }).click();
    expect(await text(dialog.getByRole('alert'))).toContain('version_conflict');
    const reload = dialog.getByRole('button', { name: /Reload/ });
    await reload.waitFor();
    // Nothing was overwritten: the first save stands.
    const stored = await gateway.admin.call<{ member: { name: string; version: number; policy: object } }>(
      'GET',
      `/members/${member.id}`,
    );
    expect(stored.member).toMatchObject({ name: 'Noor Adler', version: 2, policy: { dailyTokens: 5_000 } });
    await checkScreen(second, engine, 'conflict');

    // "Reload" from the keyboard shows the record as now stored; the change is made again on top and saved.
    await reload.focus();
    await second.keyboard.press('Enter');
    expect(await dialog.getByLabel('Name').inputValue()).toBe('Noor Adler');
    expect(await dialog.getByLabel('Daily tokens').inputValue()).toBe('5000');
    expect(await dialog.getByRole('alert').count()).toBe(0);
    await dialog.getByLabel('Daily tokens').fill('7500');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const saved = await gateway.admin.call<{ member: { name: string; version: number; policy: object } }>(
      'GET',
      `/members/${member.id}`,
    );
    expect(saved.member).toMatchObject({ name: 'Noor Adler', version: 3, policy: { dailyTokens: 7_500, rpm: 30 } });
    for (const context of contexts) await context.close();
  }, 120_000);

  it('pages the Members and Keys lists with "Load more" and filters them by name and state', async () => {
    const memberIds: string[] = [];
    for (let index = 0; index < 56; index++) {
      const { member } = await gateway.admin.call<{ member: { id: string } }>('POST', '/members', {
        name: `Pager ${String(index).padStart(2, '0')}`,
      });
      memberIds.push(member.id);
    }
    for (const id of memberIds.slice(10, 13)) await gateway.admin.call('POST', `/members/${id}/disable`);
    const keyIds: string[] = [];
    for (let index = 0; index < 53; index++) {
      const issued = await gateway.admin.call<{ id: string }>('POST', '/keys', {
        memberId: memberIds[index % 5],
        name: `batch ${String(index).padStart(2, '0')}`,
      });
      keyIds.push(issued.id);
    }
    await gateway.admin.call('POST', `/keys/${keyIds[7]}/revoke`);

    const context = await browser.newContext({ viewport: desktop });
    const { page, errors } = await openConsole(context, gateway.url);
    await signIn(page, gateway.adminKey);
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    const memberRows = page.locator('tbody tr[data-member-id]');
    const loadMore = page.getByRole('button', { name: 'Load more' });

    // Filter by a part of the name, typed and confirmed with Enter; 56 match: a page of 50, then the rest.
    await page.getByRole('searchbox', { name: 'Search by name' }).fill('pager');
    await listAnswer(page, 'name=pager', () => page.getByRole('searchbox', { name: 'Search by name' }).press('Enter'));
    await waitForRows(page, 50, /^Pager \d\d$/);
    await loadMore.focus();
    await listAnswer(page, 'cursor=', () => page.keyboard.press('Enter'));
    await waitForRows(page, 56, /^Pager \d\d$/);
    expect(await loadMore.count()).toBe(0);
    const shown = await memberRows.evaluateAll((rows) => rows.map((element) => element.getAttribute('data-member-id')));
    expect([...shown].sort()).toEqual([...memberIds].sort());

    await listAnswer(page, 'state=disabled', () => page.getByLabel('State').selectOption('disabled'));
    await expect.poll(() => memberRows.count(), pollWait).toBe(3);
    expect(
      (await memberRows.evaluateAll((rows) => rows.map((element) => element.getAttribute('data-member-id')))).sort(),
    ).toEqual(memberIds.slice(10, 13).sort());
    await listAnswer(page, 'name=pager&limit', () => page.getByLabel('State').selectOption(''));
    await page.getByRole('searchbox', { name: 'Search by name' }).fill('PAGER 42');
    await listAnswer(page, 'name=PAGER+42', () =>
      page.getByRole('searchbox', { name: 'Search by name' }).press('Enter'),
    );
    await waitForRows(page, 1, /^Pager 42$/);
    expect(await memberRows.first().getAttribute('data-member-id')).toBe(memberIds[42]);

    await openView(page, 'Keys');
    const keyRows = page.locator('tbody tr[data-key-id]');
    await page.getByRole('searchbox', { name: 'Search by name' }).fill('batch');
    await listAnswer(page, 'name=batch&limit', () =>
      page.getByRole('searchbox', { name: 'Search by name' }).press('Enter'),
    );
    await waitForRows(page, 50, /^batch \d\d$/);
    await listAnswer(page, 'cursor=', () => loadMore.click());
    await waitForRows(page, 53, /^batch \d\d$/);
    expect(await loadMore.count()).toBe(0);
    await listAnswer(page, 'state=revoked', () => page.getByLabel('State').selectOption('revoked'));
    await expect.poll(() => keyRows.count(), pollWait).toBe(1);
    expect(await keyRows.first().getAttribute('data-key-id')).toBe(keyIds[7]);
    await listAnswer(page, 'state=active&limit', () => page.getByLabel('State').selectOption('active'));
    await waitForRows(page, 50, /^batch \d\d$/);
    await listAnswer(page, 'cursor=', () => loadMore.click());
    await waitForRows(page, 52, /^batch \d\d$/);
    // "Keys of" offers the whole team, not the first page of it.
    await expect
      .poll(
        async () =>
          (await page.getByLabel('Keys of').locator('option').allTextContents()).filter((name) =>
            /^Pager \d\d$/.test(name),
          ).length,
        pollWait,
      )
      .toBe(56);
    await listAnswer(page, `memberId=${memberIds[4]}`, () =>
      page.getByLabel('Keys of').selectOption({ label: 'Pager 04' }),
    );
    await waitForRows(page, 10, /^batch \d\d$/);
    await checkScreen(page, engine, 'keys-filtered');
    expect(errors.filter((error) => !/40[14]/.test(error))).toEqual([]);
    await context.close();
  }, 180_000);
});
