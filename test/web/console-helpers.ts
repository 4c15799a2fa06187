import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

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
  await page.screenshot({ path: join(artifacts, `console-${name}-390.png`), fullPage: true });
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  problems.push(...(await accessibilityProblems(page)));
  await page.setViewportSize(desktop);
  return { overflow, problems };
}
