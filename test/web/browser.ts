import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's `chromium` package (installed by .ci/run); CHROMIUM_PATH overrides it on other machines. */
export const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Launches the system Chromium headless; fails with what to install when it is missing. */
export async function launchChromium(executablePath = chromiumPath): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(
      `No Chromium at ${executablePath}: the browser tests need a real browser. Install Debian's package ` +
        '(`apt-get install -y chromium`, as .ci/run does) or set CHROMIUM_PATH to a Chromium binary.',
    );
  }
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
