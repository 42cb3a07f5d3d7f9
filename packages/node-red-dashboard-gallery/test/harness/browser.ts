import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { nodeRedPackage, packageRoot } from './dashboard-red.js';

/** Debian's chromium (`apt-get install chromium`); npm test installs it when missing. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
}

/**
 * Saves a screenshot for the README (`docs/<name>.png`) when asked to (UPDATE_SCREENSHOTS=1, and
 * by one Node-RED version only), to the temporary folder otherwise. Returns where it went.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path =
    process.env.UPDATE_SCREENSHOTS === '1' && nodeRedPackage === 'node-red'
      ? join(packageRoot, 'docs', `${name}.png`)
      : join(tmpdir(), 'observation-gallery-screenshots', `${name}-${nodeRedPackage}.png`);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path });
  return path;
}
