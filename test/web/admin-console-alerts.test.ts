import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { launchChromium } from './browser.ts';
import { captureScreen, desktop } from './console-helpers.ts';

/** Issue 23 item 5: the console lists the recent alerts, newest first, filterable by type. */
let browser: Browser;
let upstream: FakeUpstream;
let gateway: TestGateway;
let page: Page;
let memberId: string;
const errors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  await gateway.admin.createConnection({
    provider: 'acme',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/v1`,
    models: ['acme-1'],
  });
  const member = await gateway.admin.createMemberWithKey({ dailyTokens: 100 });
  memberId = member.memberId;
  // One answer charged the whole day: the member reaches 80 % and 100 % of the allowance at once.
  upstream.nextResponse({ type: 'answer', usage: { inputTokens: 99, cachedInputTokens: 0, outputTokens: 1 } });
  await openaiClient(gateway, member.key).chat.completions.create({
    model: 'acme/acme-1',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 1,
  });
  for (let round = 0; round < 3; round++) await Promise.allSettled([...gateway.host.services.background]);
  const context = await browser.newContext({ viewport: desktop });
  page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await upstream?.close();
});

describe('the Alerts view', () => {
  it('lists the allowance alerts of a member, newest first, and filters by type', async () => {
    await page.goto(`${gateway.url}/app/admin`);
    await page.getByLabel('Gateway key').fill(gateway.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Alerts', exact: true }).waitFor();
    const rows = page.locator('tr[data-type="allowance.threshold"]');
    await rows.nth(1).waitFor();
    const texts = await rows.allTextContents();
    expect(texts).toHaveLength(2);
    expect(texts.every((text) => text.includes(memberId) && text.includes('test member'))).toBe(true);
    expect(texts.some((text) => text.includes('100 % of the daily allowance: 100 of 100 tokens'))).toBe(true);
    expect(texts.some((text) => text.includes('80 % of the daily allowance'))).toBe(true);
    // Without a receiver configured, alerts are recorded and listed, not sent.
    expect(texts.every((text) => text.includes('unsent'))).toBe(true);

    const { overflow, problems } = await captureScreen(page, 'alerts');
    expect(overflow).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);

    await page.getByLabel('Type').selectOption('key.expiring');
    await page.getByText('No alerts.').waitFor();
    expect(await rows.count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
