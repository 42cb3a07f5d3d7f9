import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from './harness/browser.js';
import { DashboardRed, nodeRedPackage } from './harness/dashboard-red.js';
import { dashboardFlow, eventsNode, galleryNode, PAGE_PATH } from './harness/flows.js';

describe(`the widget speaks the browser's language (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: DashboardRed;
  let browser: Browser;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, historySize: 10 });
    red = await DashboardRed.start();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await red?.stop();
    await sim?.stop();
  });

  it('a zh-TW browser gets every text of the cards, filters and dialog in Traditional Chinese', {
    timeout: 90_000,
  }, async () => {
    await red.deploy([
      ...dashboardFlow(sim),
      eventsNode('events-1', ['gallery-served', 'gallery-offline']),
      galleryNode('gallery-served', { order: 1 }),
      galleryNode('gallery-offline', { order: 2, server: '' }),
    ]);
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, locale: 'zh-TW' });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${red.baseUrl}${PAGE_PATH}`);
    const served = page.locator('[data-gallery-id="gallery-served"]');
    const offline = page.locator('[data-gallery-id="gallery-offline"]');
    await served.waitFor({ timeout: 30_000 });
    expect(await served.getAttribute('lang')).toBe('zh-TW');
    await expect.poll(() => served.locator('.obs-empty').textContent()).toBe('等待事件中…');

    await red.connected('events-1');
    const emitted = await sim.control.emit(3);
    // The dialog lists a confidence only for an event with detected objects, and the cards'
    // order follows the events' times, so the test opens a card that has one.
    expect(emitted.some((event) => event.detected_objects.length > 0)).toBe(true);
    await expect.poll(() => offline.locator('.obs-card').count(), { timeout: 20_000 }).toBe(3);
    await expect.poll(() => served.locator('.obs-gallery-count').textContent()).toBe('3 / 3');
    const filterLabels = await served
      .locator('.obs-gallery-bar label')
      .evaluateAll((labels) => labels.map((label) => label.firstChild?.textContent?.trim()));
    expect(filterLabels).toEqual(['事件', '任務']);
    expect(await served.locator('.obs-filter-event option').first().textContent()).toBe('全部');
    // Without a server the cards name tasks by id, in the page's language.
    expect(await offline.locator('.obs-card-task').first().textContent()).toMatch(/^任務 #\d+$/);
    expect(await served.locator('.obs-card').first().getAttribute('title')).toBe('開啟完整影像');

    // The dialog: detail labels, the clip link, and the note where there is no clip.
    await served
      .locator('.obs-card', { has: page.locator('.obs-card-confidence') })
      .first()
      .click();
    const dialog = page.locator('.obs-dialog');
    const details = (await dialog.locator('.obs-dialog-details').textContent()) ?? '';
    for (const label of ['任務', '地點', '時間', '信心度']) expect(details).toContain(label);
    expect(await dialog.locator('.obs-dialog-clip').textContent()).toBe('開啟影片');
    expect(await dialog.locator('.obs-dialog-close').getAttribute('aria-label')).toBe('關閉');
    await page.keyboard.press('Escape');
    await offline.locator('.obs-card').first().click();
    await expect.poll(() => dialog.locator('.obs-dialog-note').textContent()).toContain('沒有影片連結');
    await page.keyboard.press('Escape');

    expect(problems).toEqual([]);
    await page.close();
  });

  it('an English browser gets English', { timeout: 60_000 }, async () => {
    await red.deploy([...dashboardFlow(sim), galleryNode('gallery-1')]);
    const page = await browser.newPage({ locale: 'en-GB' });
    await page.goto(`${red.baseUrl}${PAGE_PATH}`);
    const gallery = page.locator('[data-gallery-id="gallery-1"]');
    await gallery.waitFor({ timeout: 30_000 });
    expect(await gallery.getAttribute('lang')).toBe('en-US');
    expect(await gallery.locator('.obs-empty').textContent()).toBe('Waiting for events…');
    expect(await gallery.locator('.obs-gallery-count').textContent()).toBe('0 of 0');
    await page.close();
  });
});
