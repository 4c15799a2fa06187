import { mkdir, readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { launchChromium } from './browser.ts';
import {
  accessibilityProblems,
  artifacts,
  desktop,
  openConsole,
  openView,
  row,
  signIn,
  text,
} from './console-helpers.ts';

/**
 * The console in Chromium, on both engines: a key's name, limits and expiry edited in its form (a versioned update
 * the gateway stores as typed), and the audit log filtered by who and what, then downloaded as CSV with the same
 * filters.
 */
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  await mkdir(artifacts, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const pollWait = { timeout: 20_000, interval: 100 };

async function auditActions(page: Page): Promise<(string | null)[]> {
  return page
    .locator('tr[data-action]')
    .evaluateAll((rows) => rows.map((element) => element.getAttribute('data-action')));
}

describe.each(['sqlite', 'dynamodb'] as const)('keys and the audit log in the console, on %s', (engine) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ environment: { GATEWAY_STORE: engine } });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
  });

  it('edits a key, filters the audit log by who and what, and downloads it as CSV', async () => {
    const { member } = await gateway.admin.call<{ member: { id: string } }>('POST', '/members', { name: 'Kei' });
    const issued = await gateway.admin.call<{ id: string }>('POST', '/keys', { memberId: member.id, name: 'old name' });
    // A second administrator makes one change of their own, to filter the log by.
    const secondAdmin = await gateway.admin.createMember({}, 'admin');
    const { key: secondKey } = await gateway.admin.createKey(secondAdmin);
    const byOther = await fetch(`${gateway.url}/admin/v1/members`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secondKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Made by the second' }),
    });
    expect(byOther.status).toBe(201);

    const context = await browser.newContext({ viewport: desktop, acceptDownloads: true });
    const { page, errors } = await openConsole(context, gateway.url);
    await signIn(page, gateway.adminKey);
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();

    await openView(page, 'Keys');
    await row(page, 'old name').getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('dialog');
    expect(await form.getByLabel('Member').isDisabled()).toBe(true);
    await form.getByLabel('Name').fill('renamed');
    await form.getByLabel('Requests per minute').fill('5');
    await form.getByLabel('Max output tokens').fill('1,024');
    await form.getByLabel('Models').fill('openai/gpt-4o-mini');
    await form.getByLabel('Expires').fill('2099-01-02T03:04');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    await row(page, 'renamed').waitFor();
    const expected = await page.evaluate<string>("new Date('2099-01-02T03:04').toISOString()");
    const { keys } = await gateway.admin.call<{
      keys: { id: string; name: string; policy: object; expiresAt: string; version: number }[];
    }>('GET', `/keys?memberId=${member.id}`);
    expect(keys).toEqual([
      expect.objectContaining({
        id: issued.id,
        name: 'renamed',
        version: 2,
        expiresAt: expected,
        policy: { rpm: 5, maxOutput: 1024, models: ['openai/gpt-4o-mini'] },
      }),
    ]);
    // Cleared again: blank fields lift the limits and the expiry.
    await row(page, 'renamed').getByRole('button', { name: 'Edit' }).click();
    expect(await form.getByLabel('Requests per minute').inputValue()).toBe('5');
    await form.getByLabel('Requests per minute').fill('');
    await form.getByLabel('Expires').fill('');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    await expect.poll(async () => text(row(page, 'renamed').locator('td').nth(3)), pollWait).toBe('Never');

    await openView(page, 'Audit log');
    await page.locator('tr[data-action]').first().waitFor();
    await page.getByLabel('What').selectOption('key.update');
    await expect.poll(() => auditActions(page), pollWait).toEqual(['key.update', 'key.update']);
    expect(await text(page.locator('tr[data-action]').first())).toContain(issued.id);
    await page.getByLabel('What').selectOption('');
    await page.getByLabel('Who (member id)').fill(secondAdmin);
    await page.getByLabel('Who (member id)').press('Enter');
    await expect.poll(() => auditActions(page), pollWait).toEqual(['member.create']);
    expect(await accessibilityProblems(page)).toEqual([]);

    await page.getByLabel('Who (member id)').fill('');
    await page.getByLabel('Who (member id)').press('Enter');
    await page.getByLabel('What').selectOption('key.update');
    await expect.poll(() => auditActions(page), pollWait).toEqual(['key.update', 'key.update']);
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const file = await (await downloading).path();
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,actor_member_id,actor_key_id,via,action,target_type,target_id,before,after');
    expect(lines.slice(1).map((line) => line.split(',').slice(4, 7).join(','))).toEqual([
      `key.update,key,${issued.id}`,
      `key.update,key,${issued.id}`,
    ]);
    expect(errors.filter((error) => !/40[14]/.test(error))).toEqual([]);
    await context.close();
  }, 120_000);
});
