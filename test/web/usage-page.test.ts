import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { parseCsv } from '../usage/parse-csv.ts';
import { type SeedRequest, seedRequests } from '../usage/seed-usage.ts';
import { launchChromium } from './browser.ts';
import { pageTraffic } from './seed-page-traffic.ts';

const artifacts = join(process.cwd(), 'test-artifacts');
const now = '2030-08-20T15:40:00.000Z';
const desktop = { width: 1366, height: 900 };
const phone = { width: 390, height: 844 };

let gateway: TestGateway;
let browser: Browser;
let member: { memberId: string; key: string; keyIds: [string, string] };
let idleMemberKey: string;
let seeds: SeedRequest[];

beforeAll(async () => {
  // Launch first: without a browser the suite must fail at once, saying what to install.
  browser = await launchChromium();
  await mkdir(artifacts, { recursive: true });
  gateway = await startTestGateway();
  gateway.host.services.now = () => new Date(now);
  const first = await gateway.admin.createMemberWithKey();
  const second = await gateway.admin.createKey(first.memberId);
  member = { memberId: first.memberId, key: first.key, keyIds: [first.keyId, second.id] };
  idleMemberKey = (await gateway.admin.createMemberWithKey()).key;
  seeds = pageTraffic({ memberId: member.memberId, keyIds: member.keyIds, now });
  await seedRequests(gateway.host.services, seeds);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

/** A page that records every console error and uncaught exception (CSP refusals show up there). */
async function openPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${gateway.url}/app/usage`);
  return { page, errors };
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('Gateway key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The text a locator holds, layout aside. */
async function text(locator: Locator): Promise<string> {
  return (await locator.textContent())?.replace(/\s+/g, ' ').trim() ?? '';
}

/** Waits for the current load to finish, then reads one total card. */
async function total(page: Page, name: string): Promise<{ value: string; detail: string }> {
  await page.waitForSelector('#dashboard:not([aria-busy])');
  const card = page.locator(`[data-total="${name}"]`);
  return {
    value: await text(card.locator('.total-value')),
    detail: await text(card.locator('.total-detail')),
  };
}

const count = (predicate: (seed: SeedRequest) => boolean) => seeds.filter(predicate).length.toLocaleString('en-US');
const todayStart = `${now.slice(0, 10)}T00:00:00.000Z`;

describe('the usage page in Chromium', () => {
  it('signs in, filters, opens the routing map and downloads the CSV at desktop width', async () => {
    const context = await browser.newContext({ viewport: desktop, acceptDownloads: true });
    const { page, errors } = await openPage(context);
    await page.screenshot({ path: join(artifacts, 'usage-sign-in-desktop.png') });

    await signIn(page, member.key);
    expect(await total(page, 'requests')).toMatchObject({ value: count(() => true) });
    const output = await total(page, 'outputTokens');
    const reported = seeds.filter((seed) => seed.outputTokens !== null && seed.state !== 'running').length;
    expect(output.detail).toBe(`from ${reported} of ${seeds.length} requests`);
    expect(page.url()).toBe(`${gateway.url}/app/usage`);
    expect(await page.evaluate<string[]>('Object.keys(sessionStorage)')).toEqual(['gateway-usage-key']);
    expect(await page.evaluate<number>('localStorage.length')).toBe(0);
    expect(await text(page.locator('[data-total="estimatedCost"]'))).toContain('Unavailable');
    await page.screenshot({ path: join(artifacts, 'usage-desktop.png'), fullPage: true });

    await page.getByText('Today', { exact: true }).click();
    expect((await total(page, 'requests')).value).toBe(count((seed) => seed.startedAt >= todayStart));

    await page.getByText('14 days', { exact: true }).click();
    await page.getByLabel('Key', { exact: true }).selectOption(member.keyIds[1]);
    expect((await total(page, 'requests')).value).toBe(count((seed) => seed.keyId === member.keyIds[1]));

    await page.locator('label.chip', { hasText: 'beta' }).click();
    const betaOnSecondKey = count((seed) => seed.keyId === member.keyIds[1] && seed.provider === 'beta');
    expect((await total(page, 'requests')).value).toBe(betaOnSecondKey);
    const detailRows = page.locator('#details-table tbody tr');
    expect(await detailRows.count()).toBe(Number(betaOnSecondKey));

    await page.getByLabel('Key', { exact: true }).selectOption('');
    await page.locator('label.chip', { hasText: 'beta' }).click();
    await page.waitForSelector('#dashboard:not([aria-busy])');

    await page.getByText('Routing map', { exact: true }).click();
    const map = page.locator('#routing-map-body svg');
    await map.waitFor({ state: 'visible' });
    expect(await text(page.locator('#routing-map summary'))).toContain('recorded activity, not provider health');
    expect(await map.locator('.map-node-provider').count()).toBe(3);
    await page.locator('#routing-map').screenshot({ path: join(artifacts, 'usage-routing-map.png') });

    // A provider node in the map is a filter too.
    await map.locator('.map-node-provider', { hasText: 'gamma' }).click();
    expect((await total(page, 'requests')).value).toBe(count((seed) => seed.provider === 'gamma'));
    await map.locator('.map-node-provider', { hasText: 'gamma' }).click();
    await page.waitForSelector('#dashboard:not([aria-busy])');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`usage-14d-${now.slice(0, 10)}.csv`);
    const csvPath = join(artifacts, 'usage-export.csv');
    await download.saveAs(csvPath);
    const [header, ...records] = parseCsv(await readFile(csvPath, 'utf8'));
    expect(header?.[0]).toBe('started_at');
    expect(records).toHaveLength(seeds.length);

    expect(errors).toEqual([]);
    await context.close();
  });

  it('is readable at phone width, with designed empty and error states', async () => {
    const context = await browser.newContext({ viewport: phone, deviceScaleFactor: 2, isMobile: true });
    const { page, errors } = await openPage(context);

    await signIn(page, 'sk-gw-not-a-real-key');
    await page.getByRole('alert').waitFor();
    expect(await text(page.getByRole('alert'))).toContain('not accepted');
    await page.screenshot({ path: join(artifacts, 'usage-sign-in-error-phone.png') });

    await signIn(page, member.key);
    expect((await total(page, 'requests')).value).toBe(count(() => true));
    await page.getByText('Routing map', { exact: true }).click();
    await page.locator('#routing-map-body svg').waitFor({ state: 'visible' });
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow, 'the page itself never scrolls sideways; wide parts scroll inside their card').toBeLessThanOrEqual(
      0,
    );
    await page.screenshot({ path: join(artifacts, 'usage-phone.png'), fullPage: true });

    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    await signIn(page, idleMemberKey);
    expect((await total(page, 'requests')).value).toBe('0');
    expect(await text(page.locator('#status'))).toContain('No requests in 14 days');
    await page.screenshot({ path: join(artifacts, 'usage-empty-phone.png'), fullPage: true });

    // 401s from the browser's own failed sign-in are expected console noise; nothing else may fail.
    expect(errors.filter((error) => !error.includes('401'))).toEqual([]);
    await context.close();
  });

  it('lets an administrator switch to team totals, and recovers from a failed load', async () => {
    const context = await browser.newContext({ viewport: desktop });
    const { page } = await openPage(context);
    await signIn(page, gateway.adminKey);
    expect((await total(page, 'requests')).value).toBe('0');
    await page.getByLabel('View').selectOption('team');
    expect((await total(page, 'requests')).value).toBe(count(() => true));

    await page.route('**/usage-api/v1/summary?*', (route) =>
      route.fulfill({ status: 503, contentType: 'text/plain', body: 'unavailable' }),
    );
    await page.getByText('7 days', { exact: true }).click();
    const status = page.locator('#status.status-error');
    await status.waitFor();
    expect(await text(status)).toContain('Could not load usage');
    await page.screenshot({ path: join(artifacts, 'usage-error-desktop.png') });
    await page.unroute('**/usage-api/v1/summary?*');
    await status.getByRole('button', { name: 'Retry' }).click();
    const lastWeek = new Date(Date.parse(todayStart) - 6 * 86_400_000).toISOString();
    expect((await total(page, 'requests')).value).toBe(count((seed) => seed.startedAt >= lastWeek));
    expect(await page.locator('#status').isHidden()).toBe(true);
    await context.close();
  });
});
