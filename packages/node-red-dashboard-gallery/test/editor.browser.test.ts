import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type english from '../src/nodes/locales/en-US/ui-observation-gallery.json';
import { launchBrowser } from './harness/browser.js';
import { DashboardRed, nodeRedPackage, packageRoot } from './harness/dashboard-red.js';
import { dashboardFlow } from './harness/flows.js';

type Catalog = (typeof english)['ui-observation-gallery'];

/** The catalog the editor should show for a browser language (Node-RED follows navigator.language). */
const catalog = (language: string): Catalog =>
  (
    JSON.parse(
      readFileSync(
        join(packageRoot, 'src', 'nodes', 'locales', language, 'ui-observation-gallery.json'),
        'utf8',
      ),
    ) as typeof english
  )['ui-observation-gallery'];

const text = (value: string | null) => (value ?? '').replace(/\s+/g, ' ').trim();

describe(`the event gallery node in the Node-RED editor (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: DashboardRed;
  let browser: Browser;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 3, historySize: 5 });
    red = await DashboardRed.start();
    await red.deploy(dashboardFlow(sim));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await red?.stop();
    await sim?.stop();
  });

  it.each([
    ['en-US', 'Details'],
    ['zh-TW', '詳細'],
  ])(
    '%s: palette, dialog, tip and help in the language; a card count out of range is flagged',
    {
      timeout: 60_000,
    },
    async (language, detailsHeading) => {
      const texts = catalog(language);
      const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, locale: language });
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(red.baseUrl);
      const paletteNode = '.red-ui-palette-node[data-palette-type="ui-observation-gallery"]';
      await page.waitForSelector(paletteNode, { timeout: 30_000 });
      await expect.poll(async () => text(await page.textContent(paletteNode))).toBe(texts.paletteLabel);
      await page.dragAndDrop(paletteNode, '#red-ui-workspace-chart', { targetPosition: { x: 300, y: 160 } });
      const node = page.locator('.red-ui-flow-node-group').filter({ hasText: texts.paletteLabel }).first();
      await node.waitFor();
      await node.locator('.red-ui-flow-node').dblclick();

      const maxCards = page.locator('#node-input-maxCards');
      await maxCards.waitFor();
      const labelOf = async (field: string) =>
        text(await page.textContent(`label[for="node-input-${field}"]`));
      expect(await labelOf('server')).toBe(texts.label.server);
      expect(await labelOf('maxCards')).toBe(texts.label.cards);
      expect(await labelOf('maxImageMegabytes')).toBe(texts.label.imageMemory);
      // The tip names the package the server node comes from (a dependency of this one).
      expect(await page.textContent('.form-tips')).toContain('@observation-service/node-red-observation');
      // Help in the language, saying what the gallery needs.
      const help = await page.evaluate(
        () =>
          (
            globalThis as unknown as { RED: { nodes: { getNodeHelp(type: string): string } } }
          ).RED.nodes.getNodeHelp('ui-observation-gallery') ?? '',
      );
      expect(help).toContain(`<h3>${detailsHeading}</h3>`);
      expect(help).toContain('@observation-service/node-red-observation');

      expect(await maxCards.inputValue()).toBe('24');
      // The server field offers the deployed observation-server config node.
      await expect
        .poll(() => page.locator('#node-input-server option').allTextContents())
        .toContain('simulator');
      await maxCards.fill('500');
      await maxCards.blur();
      await expect
        .poll(() => maxCards.evaluate((input) => input.classList.contains('input-error')))
        .toBe(true);
      await maxCards.fill('50');
      await maxCards.blur();
      await expect
        .poll(() => maxCards.evaluate((input) => input.classList.contains('input-error')))
        .toBe(false);
      expect(problems).toEqual([]);
      await page.close();
    },
  );
});
