/**
 * Debian's Chromium driven by playwright-core, with the flags the project runs it with (no sandbox
 * in containers, nothing that phones home). Shared by the browser tests and bench/web.ts.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM_PATH = process.env.NETLOOKUP_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The browser, or the reason it cannot start here (for a visible skip). */
export async function launchChromium(): Promise<{ browser: Browser } | { reason: string }> {
  if (!fs.existsSync(CHROMIUM_PATH)) return { reason: `${CHROMIUM_PATH} is missing (apt-get install chromium)` };
  try {
    return { browser: await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS, headless: true, timeout: 60_000 }) };
  } catch (error) {
    return { reason: `${CHROMIUM_PATH} cannot start: ${(error as Error).message.split('\n')[0]}` };
  }
}
