import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { launchChromium } from './browser.ts';
import {
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

let browser: Browser;
let upstream: FakeUpstream;

beforeAll(async () => {
  // Launch first: without a browser the suite must fail at once, saying what to install.
  browser = await launchChromium();
  await mkdir(artifacts, { recursive: true });
  upstream = await startFakeUpstream();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await upstream?.close();
});

describe.each(['sqlite', 'dynamodb'] as const)('the admin console in Chromium, on %s', (engine) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ environment: { GATEWAY_STORE: engine } });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
  });

  it('runs the team: a connection, a member with an allowance, a key the openai SDK uses, then revoked', async () => {
    const context = await browser.newContext({ viewport: desktop, permissions: ['clipboard-read', 'clipboard-write'] });
    const { page, errors } = await openConsole(context, gateway.url);
    const screens: Record<string, { overflow: number; problems: string[] }> = {};
    const shoot = async (name: string) => {
      if (engine === 'sqlite') screens[name] = await captureScreen(page, name);
    };

    await page.getByLabel('Gateway key').waitFor();
    await shoot('sign-in');
    await signIn(page, gateway.adminKey);
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    expect(await page.evaluate<string[]>('Object.keys(sessionStorage)')).toEqual(['gateway-usage-key']);
    expect(page.url()).toBe(`${gateway.url}/app/admin`);

    // A connection to the test upstream, its credential typed once and never shown again.
    await openView(page, 'Connections');
    await page.getByRole('button', { name: 'Create connection' }).click();
    const connectionForm = page.getByRole('dialog');
    await connectionForm.getByLabel('Provider').fill('openai');
    await connectionForm.getByLabel('Base URL').fill(`${upstream.url}/v1`);
    await connectionForm.getByLabel('Models').fill('gpt-4o-mini');
    await connectionForm.getByLabel('Credential').fill('upstream-credential-typed-once');
    await connectionForm.getByRole('button', { name: 'Create connection' }).click();
    await connectionForm.waitFor({ state: 'detached' });
    const connectionRow = row(page, 'openai');
    await connectionRow.waitFor();
    expect(await page.content()).not.toContain('upstream-credential-typed-once');
    await connectionRow.getByRole('button', { name: 'Test connection' }).click();
    const report = page.locator('.test-report');
    await report.waitFor();
    expect(await text(report)).toContain('passed');
    expect(await text(report)).toContain('Model list: ok');
    await shoot('connections');

    // A member with a 10,000-token allowance; the form refuses what the server's schema refuses, before sending.
    await openView(page, 'Members');
    await page.getByRole('button', { name: 'Create member' }).click();
    const memberForm = page.getByRole('dialog');
    await memberForm.getByLabel('Name').fill('Ada');
    await memberForm.getByLabel('Requests per minute').fill('-3');
    await memberForm.getByRole('button', { name: 'Create member' }).click();
    expect(await text(memberForm.getByRole('alert'))).toContain('policy.rpm');
    await memberForm.getByLabel('Requests per minute').fill('');
    await memberForm.getByLabel('Daily tokens').fill('10,000');
    await memberForm.getByLabel('Concurrency').fill('4');
    await memberForm.getByRole('button', { name: 'Create member' }).click();
    await memberForm.waitFor({ state: 'detached' });
    const memberRow = row(page, 'Ada');
    await memberRow.waitFor();
    const memberId = (await memberRow.getAttribute('data-member-id')) ?? '';
    expect(memberId).toMatch(/^mem_/);
    await shoot('members');

    // A key for her, its secret shown once in "New key" and copied with the button.
    await openView(page, 'Keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const keyForm = page.getByRole('dialog');
    await keyForm.getByLabel('Member').selectOption({ label: 'Ada' });
    await keyForm.getByLabel('Name').fill('laptop');
    await keyForm.getByRole('button', { name: 'Create key' }).click();
    await keyForm.waitFor({ state: 'detached' });
    const secret = await page.getByRole('textbox', { name: 'New key' }).inputValue();
    expect(secret).toMatch(/^sk-/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.').waitFor();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toBe(secret);
    await shoot('keys-new-secret');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);
    const keyRow = row(page, 'laptop');
    const keyId = (await keyRow.getAttribute('data-key-id')) ?? '';

    // The official openai SDK calls a model with that key.
    const client: OpenAI = openaiClient(gateway, copied, { maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 16,
    });
    expect(answer.choices[0]?.message).toBeDefined();

    // The members list shows what that call used today; the administrator lowers the allowance below it and the
    // next call is refused with 429.
    await openView(page, 'Members');
    const usedToday = await text(row(page, 'Ada').locator('td').nth(2));
    expect(Number(usedToday.replace(/,/g, ''))).toBeGreaterThan(0);
    await row(page, 'Ada').getByRole('button', { name: 'Edit' }).click();
    const editForm = page.getByRole('dialog');
    expect(await editForm.getByLabel('Daily tokens').inputValue()).toBe('10000');
    await editForm.getByLabel('Daily tokens').fill('1');
    await editForm.getByRole('button', { name: 'Save' }).click();
    await editForm.waitFor({ state: 'detached' });
    await row(page, 'Ada').locator('[data-left]').getByText(/of 1$/).waitFor();
    const limited = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 })
      .catch((error: unknown) => error);
    expect((limited as InstanceType<typeof OpenAI.APIError>).status).toBe(429);

    // The member signs in with that key, in a browser of their own, and sees the allowance that call used.
    const memberContext = await browser.newContext({ viewport: desktop });
    const { page: memberPage, errors: memberErrors } = await openConsole(memberContext, gateway.url);
    await signIn(memberPage, copied);
    await memberPage.getByRole('heading', { level: 1, name: 'Ada' }).waitFor();
    expect(await text(memberPage.locator('[data-total="used"] .total-value'))).toBe(usedToday);
    expect(await text(memberPage.locator('[data-total="left"] .total-detail'))).toContain('of 1 a day');
    expect(memberErrors).toEqual([]);
    await memberContext.close();
    await openView(page, 'Keys');

    // Revoked from its row, after a confirmation: the SDK is refused with 401.
    await keyRow.getByRole('button', { name: 'Revoke' }).click();
    await confirm(page, 'revoke');
    await keyRow.locator('.state-revoked').waitFor();
    await shoot('keys');
    const refused = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(401);
    expect(keyId).toMatch(/^key_/);

    // Holders and the audit log are one click away.
    await openView(page, 'Holders');
    await page.getByRole('heading', { name: 'Holders' }).waitFor();
    await page.getByLabel('Wallet', { exact: true }).fill('wallet-0xabc');
    await page.getByLabel('Holdings (USD)').fill('1,250.50');
    await page.getByRole('button', { name: 'Set holdings' }).click();
    await row(page, 'holder wallet-0xabc').getByText('$1,250.50').waitFor();
    await page.getByRole('button', { name: 'Issue holder key' }).click();
    expect(await page.getByRole('textbox', { name: 'New key' }).inputValue()).toMatch(/^sk-/);
    await shoot('holders');
    await page.getByRole('button', { name: 'Done' }).click();

    // Rotating a key: the old secret stops working at once, the new one (shown once) works.
    await openView(page, 'Keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog').getByLabel('Member').selectOption({ label: 'Ada' });
    await page.getByRole('dialog').getByLabel('Name').fill('desktop');
    await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
    const firstSecret = await page.getByRole('textbox', { name: 'New key' }).inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    await row(page, 'desktop').getByRole('button', { name: 'Rotate' }).click();
    await confirm(page, 'rotate');
    const rotatedSecret = await page.getByRole('textbox', { name: 'New key' }).inputValue();
    expect(rotatedSecret).toMatch(/^sk-/);
    expect(rotatedSecret).not.toBe(firstSecret);
    await page.getByRole('button', { name: 'Done' }).click();
    const oldStatus = await openaiClient(gateway, firstSecret, { maxRetries: 0 })
      .models.list()
      .then(() => 200)
      .catch((error: unknown) => (error as InstanceType<typeof OpenAI.APIError>).status);
    expect(oldStatus).toBe(401);
    // The new secret is accepted (the model list costs no allowance; Ada's is down to 1 token by now).
    const rotated = openaiClient(gateway, rotatedSecret, { maxRetries: 0 });
    expect((await rotated.models.list()).data.length).toBeGreaterThan(0);

    // Suspending and enabling a member, a connection disabled and enabled, each after its confirmation.
    await openView(page, 'Members');
    await row(page, 'Ada').getByRole('button', { name: 'Suspend' }).click();
    await confirm(page, 'suspend');
    await row(page, 'Ada').locator('.state-suspended').waitFor();
    await row(page, 'Ada').getByRole('button', { name: 'Enable' }).click();
    await row(page, 'Ada').locator('.state-active').waitFor();
    await openView(page, 'Connections');
    await row(page, 'openai').getByRole('button', { name: 'Disable' }).click();
    await confirm(page, 'disable');
    await row(page, 'openai').locator('.state-disabled').waitFor();
    await row(page, 'openai').getByRole('button', { name: 'Enable' }).click();
    await row(page, 'openai').locator('.state-enabled').waitFor();

    // The audit log shows each change, newest first.
    await openView(page, 'Audit log');
    await page.locator('tr[data-action]').first().waitFor();
    const actions = await page
      .locator('tr[data-action]')
      .evaluateAll((rows) => rows.map((element) => element.getAttribute('data-action')));
    expect([...actions].reverse()).toEqual([
      'connection.create',
      'connection.test',
      'member.create',
      'key.create',
      'member.update',
      'key.revoke',
      'holder.set-holdings',
      'holder.issue-key',
      'key.create',
      'key.rotate',
      'member.suspend',
      'member.enable',
      'connection.disable',
      'connection.enable',
    ]);
    await shoot('audit');

    // The usage view, filtered to the key from its row, keeps the same sign-in.
    await openView(page, 'Keys');
    await row(page, 'laptop').getByRole('link', { name: 'Usage of laptop' }).click();
    await page.waitForURL(`${gateway.url}/app/usage?scope=team&keyId=${keyId}`);
    await page.waitForSelector('#dashboard:not([aria-busy])');
    expect(await page.getByLabel('Key', { exact: true }).inputValue()).toBe(keyId);
    expect(await text(page.locator('[data-total="requests"] .total-value'))).toBe('1');
    await page.screenshot({ path: join(artifacts, 'console-usage-of-key-1440.png'), fullPage: true });

    for (const [name, screen] of Object.entries(screens)) {
      expect(screen.problems, `axe-core findings on ${name}`).toEqual([]);
      expect(screen.overflow, `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
    }
    expect(errors.filter((error) => !/40[14]/.test(error))).toEqual([]);
    await context.close();
  }, 120_000);
});
