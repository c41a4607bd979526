import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

// Debian's Chromium (`.ci/run` installs it); playwright-core never downloads a browser.
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Chromium, or an error naming how to get it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}
