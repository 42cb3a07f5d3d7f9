import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot } from './harness/browser.js';
import { DashboardRed, nodeRedPackage } from './harness/dashboard-red.js';
import {
  DARK_THEME,
  dashboardFlow,
  eventsNode,
  galleryNode,
  LIGHT_THEME,
  PAGE_PATH,
  type ThemeColors,
} from './harness/flows.js';
import { socketsOpen } from './harness/wait.js';

type Rgb = [number, number, number];

function hexToRgb(hex: string): Rgb {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** `rgb(…)` / `rgba(…)` as the browser computes it: the channels and the alpha. */
function parseColor(css: string): { rgb: Rgb; alpha: number } {
  const parts = /rgba?\(([^)]+)\)/
    .exec(css)?.[1]
    ?.split(',')
    .map((part) => Number(part.trim()));
  if (!parts || parts.length < 3) throw new Error(`not an rgb colour: ${css}`);
  return { rgb: [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0], alpha: parts[3] ?? 1 };
}

/** A translucent colour painted over an opaque one. */
function over(top: string, below: Rgb): Rgb {
  const { rgb, alpha } = parseColor(top);
  return rgb.map((channel, i) => Math.round(channel * alpha + (below[i] ?? 0) * (1 - alpha))) as Rgb;
}

/** WCAG 2 contrast ratio of two opaque colours (1 to 21). */
function contrast(a: Rgb, b: Rgb): number {
  const luminance = (rgb: Rgb) => {
    const [r, g, b2] = rgb.map((channel) => {
      const c = channel / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as Rgb;
    return 0.2126 * r + 0.7152 * g + 0.0722 * b2;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const rgbText = (rgb: Rgb) => `rgb(${rgb.join(', ')})`;

/** The computed colours of the widget's parts, and the theme variables Dashboard set on the page. */
async function colours(page: Page) {
  return page.evaluate(() => {
    const style = (selector: string) => {
      const element = document.querySelector(selector);
      if (!element) throw new Error(`${selector} is not on the page`);
      return getComputedStyle(element);
    };
    // A Vuetify theme variable holds "r,g,b"; as the browser writes a computed colour.
    const variable = (name: string) =>
      `rgb(${style('.obs-gallery')
        .getPropertyValue(name)
        .split(',')
        .map((part) => part.trim())
        .join(', ')})`;
    return {
      theme: {
        groupBackground: variable('--v-theme-group-background'),
        onGroupBackground: variable('--v-theme-on-group-background'),
        groupOutline: variable('--v-theme-group-outline'),
        surface: variable('--v-theme-surface'),
        onSurface: variable('--v-theme-on-surface'),
      },
      gallery: style('.obs-gallery').color,
      card: {
        color: style('.obs-card').color,
        background: style('.obs-card').backgroundColor,
        border: style('.obs-card').borderTopColor,
      },
      select: {
        color: style('.obs-filter-event').color,
        background: style('.obs-filter-event').backgroundColor,
      },
      option: {
        color: style('.obs-filter-event option').color,
        background: style('.obs-filter-event option').backgroundColor,
      },
    };
  });
}

describe(`the event gallery follows the page's Dashboard 2 theme (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: DashboardRed;
  let browser: Browser;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 11, historySize: 10 });
    red = await DashboardRed.start();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await red?.stop();
    await sim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    await socketsOpen(sim, 0);
    sim.control.reset();
  });

  const themes: Array<[string, ThemeColors]> = [
    ['light (Dashboard 2 default)', LIGHT_THEME],
    ['dark (Dashboard 2 "dark" preset)', DARK_THEME],
  ];

  it.each(themes)(
    '%s: cards, filters and dialog take their colours from the theme',
    {
      timeout: 90_000,
    },
    async (name, theme) => {
      await red.deploy([
        ...dashboardFlow(sim, theme),
        eventsNode('events-1', ['gallery-1']),
        galleryNode('gallery-1'),
      ]);
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${red.baseUrl}${PAGE_PATH}`);
      await page.waitForSelector('.obs-gallery', { timeout: 30_000 });
      await red.connected('events-1');
      await sim.control.emit(6);
      const cards = page.locator('.obs-card');
      await expect.poll(() => cards.count(), { timeout: 20_000 }).toBe(6);
      await expect
        .poll(() =>
          page.$$eval('.obs-card-image', (images) =>
            images.every((image) => (image as HTMLImageElement).naturalWidth > 0),
          ),
        )
        .toBe(true);

      const seen = await colours(page);
      // Dashboard applied the page's theme (Vuetify variables from the ui-theme node).
      const group = hexToRgb(theme.groupBg);
      expect(seen.theme.groupBackground).toBe(rgbText(group));
      expect(seen.theme.groupOutline).toBe(rgbText(hexToRgb(theme.groupOutline)));

      // Text in the group's "on" colour, readable on the group (WCAG AAA, 7:1) in either theme.
      const text = parseColor(seen.theme.onGroupBackground).rgb;
      expect(seen.gallery).toBe(seen.theme.onGroupBackground);
      expect(seen.card.color).toBe(seen.theme.onGroupBackground);
      expect(contrast(text, group)).toBeGreaterThanOrEqual(7);
      // A card is a faint tint of that colour over the group, outlined as Dashboard outlines groups.
      const cardBackground = over(seen.card.background, group);
      expect(contrast(text, cardBackground)).toBeGreaterThanOrEqual(7);
      expect(seen.card.border).toBe(seen.theme.groupOutline);
      // The filters (and their drop-down lists) are the group's colours, not the browser's white.
      expect(seen.select).toEqual({
        color: seen.theme.onGroupBackground,
        background: seen.theme.groupBackground,
      });
      expect(seen.option).toEqual({
        color: seen.theme.onGroupBackground,
        background: seen.theme.groupBackground,
      });

      if (theme === DARK_THEME) await screenshot(page, 'gallery-dark');

      // The dialog is a theme surface, with the surface's text colour.
      await cards.first().click();
      const box = page.locator('.obs-dialog-box');
      await box.waitFor();
      const dialog = await box.evaluate((element) => {
        const style = getComputedStyle(element);
        return { color: style.color, background: style.backgroundColor };
      });
      expect(dialog).toEqual({ color: seen.theme.onSurface, background: seen.theme.surface });
      expect(
        contrast(parseColor(dialog.color).rgb, parseColor(dialog.background).rgb),
      ).toBeGreaterThanOrEqual(7);
      if (theme === DARK_THEME) {
        // A dark theme gives a dark dialog: darker than mid-grey, with light text.
        expect(contrast(parseColor(dialog.background).rgb, [0, 0, 0])).toBeLessThan(3);
      }
      expect(problems, name).toEqual([]);
      await page.close();
    },
  );
});
