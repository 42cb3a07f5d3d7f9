import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryNode, serverNode, tab } from '../harness/flows.js';
import { NodeRedHarness, nodeRedPackage, packageRoot } from '../harness/node-red.js';
import { collectPageErrors } from './page-errors.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const VIEWPORT = { width: 1360, height: 900 };
/** The README's zh-TW pictures are only rewritten with UPDATE_SCREENSHOTS=1 (else: temp dir). */
function screenshotPath(name: string): string {
  return process.env.UPDATE_SCREENSHOTS === '1'
    ? join(packageRoot, 'docs', name)
    : join(tmpdir(), 'observation-node-red-screenshots', name);
}

const zh = (file: string) =>
  JSON.parse(readFileSync(join(packageRoot, 'src', 'nodes', 'locales', 'zh-TW', file), 'utf8'));
const events = zh('observation-events.json')['observation-events'];
const server = zh('observation-server.json')['observation-server'];
const watch = zh('observation-task-watch.json')['observation-task-watch'];
const query = zh('observation-query.json')['observation-query'];

const text = (value: string | null | undefined) => (value ?? '').replace(/\s+/g, ' ').trim();

/**
 * On a tab of its own (the other tests work on the first one): a query node with a From it
 * refuses, so its status turns to the error ring when the inject node fires.
 */
const statusFlow = [
  { id: 'zh-status-tab', type: 'tab', label: 'status' },
  {
    id: 'zh-inject',
    type: 'inject',
    z: 'zh-status-tab',
    props: [],
    repeat: '',
    once: false,
    x: 120,
    y: 80,
    wires: [['zh-query']],
  },
  queryNode(
    'zh-query',
    [],
    { operation: 'history', startTime: 'yesterday', startTimeType: 'str' },
    'zh-status-tab',
  ),
];

describe(`editor in Traditional Chinese (browser language zh-TW, ${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install chromium`);
    sim = await startSimulator({ seed: 42 });
    red = await NodeRedHarness.start();
    await red.deploy([tab(), serverNode(sim, { name: 'simulator' }), ...statusFlow]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    // One editor load for the file: a load (bundles, Monaco, every palette icon) takes seconds,
    // and tens of them on a loaded 2-core runner. The server dialog test runs first and leaves the
    // workspace as it found it, so the events test starts from an empty tab.
    ({ page, problems } = await openEditor());
  });
  afterAll(async () => {
    await page?.context().close();
    await browser?.close();
    await red?.stop();
    await sim?.stop();
  });

  /** A page whose browser language is zh-TW: Node-RED's editor follows navigator.language. */
  async function openEditor(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: VIEWPORT, locale: 'zh-TW' });
    const page = await context.newPage();
    const problems = collectPageErrors(page);
    await page.goto(red.baseUrl);
    await page.waitForSelector('.red-ui-palette-node[data-palette-type="observation-events"]', {
      timeout: 30_000,
    });
    return { page, problems };
  }

  async function shoot(page: Page, name: string): Promise<void> {
    const path = screenshotPath(name);
    mkdirSync(dirname(path), { recursive: true });
    await page.screenshot({ path });
    console.log(`[editor zh-TW] screenshot: ${path}`);
    expect(readFileSync(path).length).toBeGreaterThan(10_000);
  }

  it('shows the server config dialog with the TLS and proxy fields in zh-TW', {
    timeout: 90_000,
  }, async () => {
    // Page errors since the load count here: this test runs first.
    // Open the deployed config node from the configuration nodes sidebar, as a user does.
    await page.evaluate(() =>
      (
        globalThis as unknown as { RED: { editor: { editConfig(a: string, t: string, id: string): void } } }
      ).RED.editor.editConfig('', 'observation-server', 'server-1'),
    );
    await page.waitForSelector('#node-config-input-url');
    const labelOf = (field: string) => page.textContent(`label[for="node-config-input-${field}"]`).then(text);
    expect(await labelOf('url')).toBe(server.label.url);
    expect(await labelOf('authType')).toBe(server.label.authType);
    expect(await labelOf('tls')).toBe(server.label.tls);
    expect(await labelOf('proxy')).toBe(server.label.proxy);
    // The TLS and proxy fields offer Node-RED's own config nodes (tls-config, http-proxy).
    expect(await page.locator('#node-config-input-tls option[value="_ADD_"]').count()).toBe(1);
    expect(await page.locator('#node-config-input-proxy option[value="_ADD_"]').count()).toBe(1);
    await expect.poll(() => page.locator('.form-tips').last().textContent()).toContain('代理伺服器');
    await shoot(page, 'editor-server-node-zh-TW.png');
    expect(problems).toEqual([]);
    await page.click('#node-config-dialog-cancel');
    await page.waitForSelector('#node-config-input-url', { state: 'detached' });
  });

  it('shows the palette, the events dialog and its help in zh-TW', { timeout: 90_000 }, async () => {
    // Only this test's page errors: the first test checked those before it.
    problems.length = 0;
    const paletteLabel = (type: string) =>
      page.textContent(`.red-ui-palette-node[data-palette-type="${type}"]`).then(text);
    await expect.poll(() => paletteLabel('observation-events')).toBe(events.paletteLabel);
    expect(await paletteLabel('observation-query')).toBe(query.paletteLabel);
    expect(await paletteLabel('observation-task-watch')).toBe(watch.paletteLabel);

    await page.dragAndDrop(
      '.red-ui-palette-node[data-palette-type="observation-events"]',
      '#red-ui-workspace-chart',
      { targetPosition: { x: 260, y: 140 } },
    );
    const node = page.locator('.red-ui-flow-node-group').filter({ hasText: events.paletteLabel }).first();
    await node.waitFor();
    await node.locator('.red-ui-flow-node').dblclick();
    await page.waitForSelector('#node-input-taskMode');

    const labelOf = (field: string) => page.textContent(`label[for="node-input-${field}"]`).then(text);
    expect(await labelOf('server')).toBe(events.label.server);
    expect(await labelOf('taskMode')).toBe(events.label.taskMode);
    expect(await labelOf('objectNames')).toBe(events.label.objectNames);
    expect(await labelOf('allowedLateness')).toBe(events.label.allowedLateness);
    expect(await page.inputValue('#node-input-allowedLateness')).toBe('120');
    expect(text(await page.textContent('#node-input-taskMode option[value="all"]'))).toBe(
      events.taskMode.all,
    );

    // The task list loads, with its status line in zh-TW.
    await page.selectOption('#node-input-server', 'server-1');
    await page.selectOption('#node-input-taskMode', 'pick');
    await expect
      .poll(() => page.textContent('#observation-events-tasks-status'))
      .toBe(events.editor.loaded.replace('__count__', String(sim.world.tasks.length)));
    const [first, second] = sim.world.tasks;
    await page.selectOption('#node-input-tasks', [String(first?.id), String(second?.id)]);
    await page.fill('#node-input-objectNames', 'person');
    await page.fill('#node-input-minConfidence', '0.6');
    await page.fill('#node-input-name', '大門人員偵測');
    await page.locator('#node-input-name').blur();
    // The service's event names to pick from, introduced in zh-TW; the image wait's label too.
    await expect
      .poll(() => page.locator('#observation-events-known-names a.observation-events-name').count())
      .toBeGreaterThan(0);
    expect(text(await page.textContent('#observation-events-known-names > span'))).toBe(
      events.editor.pickNames,
    );
    expect(text(await page.textContent('label[for="node-input-mediaWait"]'))).toBe(events.label.mediaWait);

    // The late-events field is validated in the editor: out of range marks the input invalid.
    await page.fill('#node-input-allowedLateness', '4000');
    await page.locator('#node-input-allowedLateness').blur();
    await expect.poll(() => page.locator('#node-input-allowedLateness.input-error').count()).toBe(1);
    await page.fill('#node-input-allowedLateness', '300');
    await page.locator('#node-input-allowedLateness').blur();
    await expect.poll(() => page.locator('#node-input-allowedLateness.input-error').count()).toBe(0);

    await page.evaluate(() =>
      (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('help'),
    );
    await page.evaluate(() => {
      const doc = (
        globalThis as unknown as {
          document: { querySelector(s: string): { scrollIntoView(top: boolean): void } | null };
        }
      ).document;
      doc.querySelector('.form-row:has(#node-input-server)')?.scrollIntoView(true);
    });
    // Help in zh-TW: a section heading of the translated help page (as Node-RED's zh-TW help names it).
    await expect
      .poll(() => page.locator('.red-ui-sidebar-help-stack, #red-ui-sidebar-content').first().textContent(), {
        timeout: 10_000,
      })
      .toContain('詳細');
    await shoot(page, 'editor-events-node-zh-TW.png');

    await page.click('#node-dialog-ok');
    const saved = await page.evaluate(() => {
      const RED = (
        globalThis as unknown as {
          RED: { nodes: { filterNodes(f: object): Array<Record<string, unknown>> } };
        }
      ).RED;
      return RED.nodes.filterNodes({ type: 'observation-events' })[0]?.allowedLateness;
    });
    expect(String(saved)).toBe('300');
    expect(problems).toEqual([]);
  });
  it('shows a status ring with nothing to fill in in zh-TW, as the editor translates it', async () => {
    const statusText = () =>
      page.evaluate(
        () =>
          (
            globalThis as unknown as {
              RED: { nodes: { node(id: string): { status?: { text?: string } } | undefined } };
            }
          ).RED.nodes.node('zh-query')?.status?.text,
      );
    expect((await red.request('POST', '/inject/zh-inject')).status).toBe(200);
    // The runtime speaks English here; the ring reads as the editor's language has it.
    await expect.poll(statusText, { timeout: 15_000 }).toBe(query.status.error);
    expect(query.status.error).not.toBe('error');
  });
});
