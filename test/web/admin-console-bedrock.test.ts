import { mkdir } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeBedrock, fakeAwsCredentials, fakeBedrockApiKey, startFakeBedrock } from '../support/fake-bedrock.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { launchChromium } from './browser.ts';
import {
  accessibilityProblems,
  artifacts,
  captureScreen,
  desktop,
  openConsole,
  openView,
  row,
  signIn,
  text,
} from './console-helpers.ts';

/**
 * The console's connection form makes Amazon Bedrock connections as the admin API takes them (docs/bedrock.md): wire
 * `bedrock`, a region, an optional base URL, models, and no credential unless a Bedrock API key is typed. Created
 * in Chromium against the fake Bedrock (which checks every SigV4 signature), then tested from its row: the report
 * shows the one-token generation that proves it.
 */
const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
let browser: Browser;
let bedrock: FakeBedrock;

beforeAll(async () => {
  browser = await launchChromium();
  await mkdir(artifacts, { recursive: true });
  // The host's AWS identity, as Lambda's role gives it: what a Bedrock connection without a key signs with.
  vi.stubEnv('AWS_ACCESS_KEY_ID', fakeAwsCredentials.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', fakeAwsCredentials.secretAccessKey);
  vi.stubEnv('AWS_SESSION_TOKEN', fakeAwsCredentials.sessionToken);
  bedrock = await startFakeBedrock();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await bedrock?.close();
  vi.unstubAllEnvs();
});
beforeEach(() => bedrock.reset());

interface StoredConnection {
  id: string;
  provider: string;
  wire: string;
  region?: string;
  baseUrl: string;
  models: string[];
}

describe.each(['sqlite', 'dynamodb'] as const)('a Bedrock connection from the console, on %s', (engine) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ environment: { GATEWAY_STORE: engine } });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
  });

  it('is created with a region and no credential, and its test report shows the signed generation', async () => {
    const context = await browser.newContext({ viewport: desktop });
    const { page, errors } = await openConsole(context, gateway.url);
    await signIn(page, gateway.adminKey);
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await openView(page, 'Connections');

    await page.getByRole('button', { name: 'Create connection' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Provider').fill('bedrock');
    expect(await form.getByLabel('Region').count()).toBe(0);
    await form.getByLabel('Wire').selectOption('bedrock');
    // Bedrock's fields: a region, the credential optional and named for what it is.
    await form.getByLabel('Region').waitFor();
    expect(await form.getByLabel('Credential', { exact: true }).count()).toBe(0);
    await form.getByLabel('Models').fill(model);
    // Without a region the server's own schema refuses it, before anything is sent.
    await form.getByRole('button', { name: 'Create connection' }).click();
    expect(await text(form.getByRole('alert'))).toContain('region');
    await form.getByLabel('Region').fill('us-west-2');
    await form.getByLabel('Base URL').fill(bedrock.url);
    if (engine === 'sqlite') {
      const screen = await captureScreen(page, 'connection-bedrock-form');
      expect(screen.problems).toEqual([]);
    }
    await form.getByRole('button', { name: 'Create connection' }).click();
    await form.waitFor({ state: 'detached' });

    const connectionRow = row(page, 'bedrock');
    await connectionRow.waitFor();
    expect(await text(connectionRow)).toContain('us-west-2');
    const { connections } = await gateway.admin.call<{ connections: StoredConnection[] }>(
      'GET',
      '/connections?name=bedrock',
    );
    expect(connections).toEqual([
      expect.objectContaining({ wire: 'bedrock', region: 'us-west-2', baseUrl: bedrock.url, models: [model] }),
    ]);

    await connectionRow.getByRole('button', { name: 'Test connection' }).click();
    const report = page.locator('.test-report');
    await report.waitFor();
    expect(await text(report)).toContain('passed');
    expect(await text(report)).toContain(`Generation with ${model}: ok · status 200`);
    // The generation went to Bedrock signed as the host, with no key of its own.
    expect(bedrock.requests.at(-1)?.refusedAs).toBeUndefined();
    expect(bedrock.requests.at(-1)?.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIA/);
    if (engine === 'sqlite') {
      const screen = await captureScreen(page, 'connection-bedrock-report');
      expect(screen.problems).toEqual([]);
      expect(screen.overflow).toBeLessThanOrEqual(0);
    } else {
      expect(await accessibilityProblems(page)).toEqual([]);
    }
    expect(errors.filter((error) => !/40[14]/.test(error))).toEqual([]);
    await context.close();
  }, 120_000);

  it('takes an optional Bedrock API key, never shown again, and the test sends it instead of a signature', async () => {
    const context = await browser.newContext({ viewport: desktop });
    const { page } = await openConsole(context, gateway.url);
    await signIn(page, gateway.adminKey);
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await openView(page, 'Connections');
    await page.getByRole('button', { name: 'Create connection' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Provider').fill('bedrock-key');
    await form.getByLabel('Wire').selectOption('bedrock');
    await form.getByLabel('Region').fill('us-east-1');
    await form.getByLabel('Base URL').fill(bedrock.url);
    await form.getByLabel('Models').fill('anthropic.claude-haiku-4-5-20251001-v1:0');
    await form.getByLabel('Bedrock API key').fill(fakeBedrockApiKey);
    await form.getByRole('button', { name: 'Create connection' }).click();
    await form.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(fakeBedrockApiKey);

    await row(page, 'bedrock-key').getByRole('button', { name: 'Test connection' }).click();
    await page
      .locator('.test-report')
      .getByText(/passed/)
      .waitFor();
    expect(bedrock.requests.at(-1)?.headers['authorization']).toBe(`Bearer ${fakeBedrockApiKey}`);
    await context.close();
  }, 120_000);
});
