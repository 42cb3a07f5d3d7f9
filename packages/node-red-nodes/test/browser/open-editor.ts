import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { collectPageErrors } from './page-errors.js';

/** Debian's chromium (`apt-get install chromium`); npm test installs it when missing. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Our events node in the palette: the editor is loaded, with our package in it. */
export const OUR_PALETTE_NODE = '.red-ui-palette-node[data-palette-type="observation-events"]';

/**
 * Opens Node-RED's editor at `baseUrl` in headless chromium, once the palette shows `ready` (by
 * default our nodes: the editor's bundles and every palette icon loaded): the page, and the list
 * its uncaught errors go to.
 */
export async function openEditor(
  baseUrl: string,
  viewport: { width: number; height: number },
  timeoutMs: number,
  ready = OUR_PALETTE_NODE,
): Promise<{ browser: Browser; page: Page; problems: string[] }> {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install chromium`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport });
  const problems = collectPageErrors(page);
  await page.goto(baseUrl);
  await page.waitForSelector(ready, { timeout: timeoutMs });
  return { browser, page, problems };
}
