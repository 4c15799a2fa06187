import { describe, expect, it } from 'vitest';
import { launchChromium } from './browser.ts';

describe('launching the browser for the page tests', () => {
  it('fails saying what to install when no Chromium is there', async () => {
    await expect(launchChromium('/nonexistent/chromium')).rejects.toThrow(
      /No Chromium at \/nonexistent\/chromium.*apt-get install -y chromium.*CHROMIUM_PATH/,
    );
  });
});
