import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';

export const artifacts = join(process.cwd(), 'test-artifacts');
export const desktop = { width: 1440, height: 900 };
export const phone = { width: 390, height: 844 };

const require = createRequire(import.meta.url);
let axeSource: Promise<string> | undefined;

/**
 * Runs axe-core in the page and returns its serious and critical findings. The source is evaluated through the
 * DevTools protocol, which the page's CSP does not govern, so the page keeps its strict policy while it is checked.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  axeSource ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  const source = await axeSource;
  await page.evaluate(source);
  // A string, run in the page: this file is Node code and has no DOM types.
  const violations = await page.evaluate<{ id: string; impact: string | null; targets: string[] }[]>(
    `axe.run(document).then((result) => result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      targets: violation.nodes.map((node) => JSON.stringify(node.target)),
    })))`,
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.targets.join(', ')}`);
}

/**
 * Screenshots the current screen at 1440 px and 390 px wide (the page never scrolls sideways at either; wide
 * tables scroll inside their box), and checks it with axe-core at both widths.
 */
export async function captureScreen(page: Page, name: string): Promise<{ overflow: number; problems: string[] }> {
  await page.setViewportSize(desktop);
  await page.screenshot({ path: join(artifacts, `console-${name}-1440.png`), fullPage: true });
  const problems = await accessibilityProblems(page);
  await page.setViewportSize(phone);
  // What the screen says, in the shot: an alert below the fold of a dialog (which scrolls inside itself, so a
  // full-page shot shows only its top on a phone) is brought into view, as the control that raised it would be.
  const alert = page.getByRole('alert').first();
  if ((await alert.count()) > 0) await alert.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, `console-${name}-390.png`), fullPage: true });
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  problems.push(...(await accessibilityProblems(page)));
  await page.setViewportSize(desktop);
  return { overflow, problems };
}

/** A console page in its own browser context, collecting the page's console errors. */
export async function openConsole(context: BrowserContext, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${url}/app/admin`);
  return { page, errors };
}

export async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('Gateway key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function text(locator: Locator): Promise<string> {
  return (await locator.textContent())?.replace(/\s+/g, ' ').trim() ?? '';
}

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The row of a table whose header cell names this record. */
export function row(page: Page, name: string): Locator {
  return page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${escapeRegExp(name)}`) }) });
}

/** Follows one of the console's navigation links. */
export async function openView(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}

/** Answers a confirmation dialog with its "Yes, …" button. */
export async function confirm(page: Page, verb: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: `Yes, ${verb}` }).click();
  await dialog.waitFor({ state: 'detached' });
}
