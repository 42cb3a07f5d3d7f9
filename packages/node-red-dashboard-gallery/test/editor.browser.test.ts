import { type Simulator, startSimulator } from '@observation-service/simulator';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardRed, nodeRedPackage } from './harness/dashboard-red.js';
import { dashboardFlow } from './harness/flows.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe(`the event gallery node in the Node-RED editor (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: DashboardRed;
  let browser: Browser;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 3, historySize: 5 });
    red = await DashboardRed.start();
    await red.deploy(dashboardFlow(sim));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await red?.stop();
    await sim?.stop();
  });

  it('is in the palette, and its dialog flags a card count out of range', { timeout: 60_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(red.baseUrl);
    const paletteNode = '.red-ui-palette-node[data-palette-type="ui-observation-gallery"]';
    await page.waitForSelector(paletteNode, { timeout: 30_000 });
    expect((await page.textContent(paletteNode))?.replace(/\s+/g, ' ').trim()).toBe('event gallery');
    await page.dragAndDrop(paletteNode, '#red-ui-workspace-chart', { targetPosition: { x: 300, y: 160 } });
    const node = page.locator('.red-ui-flow-node-group').filter({ hasText: 'event gallery' }).first();
    await node.waitFor();
    await node.locator('.red-ui-flow-node').dblclick();

    const maxCards = page.locator('#node-input-maxCards');
    await maxCards.waitFor();
    expect(await maxCards.inputValue()).toBe('24');
    // The server field offers the deployed observation-server config node.
    await expect
      .poll(() => page.locator('#node-input-server option').allTextContents())
      .toContain('simulator');
    await maxCards.fill('500');
    await maxCards.blur();
    await expect.poll(() => maxCards.evaluate((input) => input.classList.contains('input-error'))).toBe(true);
    await maxCards.fill('50');
    await maxCards.blur();
    await expect
      .poll(() => maxCards.evaluate((input) => input.classList.contains('input-error')))
      .toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  });
});
