import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { type Browser, chromium, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queryNode, serverNode, tab } from '../harness/flows.js';
import { NodeRedHarness, nodeRedPackage, packageRoot } from '../harness/node-red.js';
import { collectPageErrors } from './page-errors.js';

/** Debian's chromium (`apt-get install chromium`); npm test installs it when missing. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const VIEWPORT = { width: 1360, height: 900 };
/**
 * The README's picture is only rewritten on request (`UPDATE_SCREENSHOTS=1`), so an ordinary
 * run leaves the work tree as it was; otherwise the screenshot goes to the temp directory.
 */
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? join(packageRoot, 'docs', 'editor-events-node.png')
    : join(tmpdir(), 'observation-node-red-screenshots', 'editor-events-node.png');

// One editor page for the whole file, as a user keeps one open: loading Node-RED's editor (its
// bundles, Monaco, every palette icon) takes about 5 s on an idle machine and 15 to 20 s in CI
// beside the n8n lane, and four loads once ran a test past its minute. Each test leaves no dialog
// open and checks only the page errors of its own steps.
describe(`editor in a headless browser (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install chromium`);
    sim = await startSimulator({ seed: 42 });
    red = await NodeRedHarness.start();
    // What an earlier version saved: a query node without msgProperties (queryNode's default
    // removed). The editor loads it from the runtime, as after an upgrade; the first test deletes it.
    const oldQuery = queryNode('old-query', [], {
      name: 'old query',
      msgProperties: undefined,
      limit: '10',
      limitType: 'num',
      x: 300,
      y: 200,
    });
    await red.deploy([tab(), serverNode(sim, { name: 'simulator' }), oldQuery]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: VIEWPORT });
    problems = collectPageErrors(page);
    await page.goto(red.baseUrl);
    await page.waitForSelector('.red-ui-palette-node[data-palette-type="observation-events"]', {
      timeout: 30_000,
    });
  });
  beforeEach(() => {
    problems.length = 0;
  });
  afterEach(async () => {
    // A test that failed with its dialog open must not leave it to the next one.
    const cancel = page.locator('#node-dialog-cancel');
    if (await cancel.isVisible()) await cancel.click();
  });
  afterAll(async () => {
    await browser?.close();
    await red?.stop();
    await sim?.stop();
  });

  /** Drags a node of `type` from the palette onto the workspace and opens its edit dialog. */
  async function openEditDialog(type: string, label: string, y: number): Promise<void> {
    await page.dragAndDrop(`.red-ui-palette-node[data-palette-type="${type}"]`, '#red-ui-workspace-chart', {
      targetPosition: { x: 260, y },
    });
    const node = page.locator('.red-ui-flow-node-group').filter({ hasText: label }).first();
    await node.waitFor();
    await node.locator('.red-ui-flow-node').dblclick();
  }

  /**
   * Done, then wait until the tray has slid out and Node-RED removed it: clicked while it was
   * still moving, the afterEach's Cancel waited its 30 s for a button that was going away.
   */
  async function clickDone(): Promise<void> {
    await page.click('#node-dialog-ok');
    await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
  }

  /** The properties the editor holds for the first node of `type` (after the dialog's Done). */
  function savedNode(type: string): Promise<Record<string, unknown> | undefined> {
    return page.evaluate((nodeType) => {
      const RED = (
        globalThis as unknown as {
          RED: { nodes: { filterNodes(f: object): Array<Record<string, unknown>> } };
        }
      ).RED;
      return RED.nodes.filterNodes({ type: nodeType })[0];
    }, type);
  }

  it('shows a query node saved before "msg properties" existed as overriding, keeps that on Done, and switches on request', {
    timeout: 60_000,
  }, async () => {
    const node = page.locator('.red-ui-flow-node-group').filter({ hasText: 'old query' }).first();
    await node.waitFor({ timeout: 30_000 });
    const open = async () => {
      await node.locator('.red-ui-flow-node').dblclick();
      await page.waitForSelector('#node-input-msgProperties');
    };
    await open();
    expect(await page.inputValue('#node-input-msgProperties')).toBe('override');
    await clickDone();
    expect((await savedNode('observation-query'))?.msgProperties).toBe('override');

    await open();
    await page.selectOption('#node-input-msgProperties', 'fill');
    await clickDone();
    expect((await savedNode('observation-query'))?.msgProperties).toBe('fill');

    // Deleted as a user does, so the other tests (and the README's picture) start from an empty tab.
    await node.locator('.red-ui-flow-node').click();
    await page.keyboard.press('Delete');
    await expect.poll(() => savedNode('observation-query')).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it('adds an events node from the palette and fills its task list from the service', {
    timeout: 60_000,
  }, async () => {
    // Every node of the package is in the palette, under its catalog label.
    await expect
      .poll(async () =>
        (await page.textContent('.red-ui-palette-node[data-palette-type="observation-task-watch"]'))
          ?.replace(/\s+/g, ' ')
          .trim(),
      )
      .toBe('observation task status');

    // Drag the node from the palette onto the workspace, as a user does.
    await openEditDialog('observation-events', 'observation events', 140);

    await page.waitForSelector('#node-input-taskMode');
    // The deployed config node, as a user picks it; its id is how the editor asks the routes.
    await page.selectOption('#node-input-server', 'server-1');
    await page.selectOption('#node-input-taskMode', 'pick');
    const options = page.locator('#node-input-tasks option');
    await expect.poll(() => options.count()).toBe(sim.world.tasks.length);
    const labels = await options.allTextContents();
    for (const task of sim.world.tasks) {
      expect(labels.some((label) => label.startsWith(`${task.name} (#${task.id})`))).toBe(true);
    }
    await expect
      .poll(() => page.textContent('#observation-events-tasks-status'))
      .toBe(`${sim.world.tasks.length} tasks`);

    // Pick two tasks and show the filters, so the screenshot tells what the node does.
    const [first, second] = sim.world.tasks;
    await page.selectOption('#node-input-tasks', [String(first?.id), String(second?.id)]);
    await page.fill('#node-input-objectNames', 'person');
    await page.fill('#node-input-minConfidence', '0.6');
    // Event names picked from the service: each known name is a link that adds it to the field.
    const picks = page.locator('#observation-events-known-names a.observation-events-name');
    await expect.poll(() => picks.count()).toBeGreaterThan(0);
    const [firstName, secondName] = await picks.allTextContents();
    await picks.nth(0).click();
    if (secondName) await picks.nth(1).click();
    await picks.nth(1).blur();
    expect(await page.inputValue('#node-input-eventNames')).toBe(
      [firstName, secondName].filter(Boolean).join(', '),
    );
    // The image wait sits with the image options.
    expect(await page.inputValue('#node-input-mediaWait')).toBe('10');

    // The help sidebar shows the node's help (and nothing random, unlike the info tab's node
    // id); no focused field, so no blinking caret: the committed picture only changes with the UI.
    await page.evaluate(() =>
      (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('help'),
    );
    await page.locator('#node-input-name').blur();
    // The dialog from its top (filling the name field scrolled it down).
    await page.evaluate(() => {
      const doc = (
        globalThis as unknown as {
          document: { querySelector(s: string): { scrollIntoView(top: boolean): void } | null };
        }
      ).document;
      doc.querySelector('.form-row:has(#node-input-server)')?.scrollIntoView(true);
    });
    await expect
      .poll(() => page.locator('.red-ui-sidebar-help-stack, #red-ui-sidebar-content').first().textContent(), {
        timeout: 5_000,
      })
      .toContain('Outputs');
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    const shot = await page.screenshot({ path: SCREENSHOT });
    console.log(`[editor] screenshot: ${SCREENSHOT}`);
    const written = PNG.sync.read(readFileSync(SCREENSHOT));
    expect(shot.equals(readFileSync(SCREENSHOT))).toBe(true);
    expect({ width: written.width, height: written.height }).toEqual(VIEWPORT);

    // Without a name, the label says what the node listens to; it has an input for msg.action.
    await clickDone();
    const nodeId = await page.evaluate(
      () =>
        (
          globalThis as unknown as { RED: { nodes: { filterNodes(q: object): Array<{ id: string }> } } }
        ).RED.nodes.filterNodes({ type: 'observation-events' })[0]?.id,
    );
    const drawn = page.locator(`[id="${nodeId}"]`);
    await expect
      .poll(() => drawn.locator('.red-ui-flow-node-label').textContent())
      .toBe(`#${first?.id},${second?.id} · ${firstName}${secondName ? ' +1' : ''}`);
    expect(await drawn.locator('.red-ui-flow-port-input').count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('offers the service tasks as a "pick" choice for the query node task id', {
    timeout: 60_000,
  }, async () => {
    await openEditDialog('observation-query', 'event history', 260);
    await page.waitForSelector('#node-input-operation');
    await page.selectOption('#node-input-server', 'server-1');
    await page.selectOption('#node-input-operation', 'task');

    const task = sim.world.tasks[3];
    // Once the list has arrived, picking a task shows its name, as the menu entry would.
    await expect
      .poll(() =>
        page.evaluate((id) => {
          const input = (
            globalThis as unknown as {
              $: (selector: string) => { typedInput(...args: unknown[]): unknown };
            }
          ).$('#node-input-taskId');
          input.typedInput('type', 'pick');
          input.typedInput('value', id);
          const page = globalThis as unknown as {
            document: { querySelector(selector: string): { textContent: string | null } | null };
          };
          const label = page.document.querySelector(
            '#observation-query-row-taskId .red-ui-typedInput-option-label',
          );
          return label?.textContent ?? '';
        }, String(task?.id)),
      )
      .toContain(`${task?.name} (#${task?.id})`);
    await clickDone();
    const query = await savedNode('observation-query');
    const saved = {
      taskId: query?.taskId,
      taskIdType: query?.taskIdType,
      operation: query?.operation,
      msgProperties: query?.msgProperties,
      valid: query?.valid,
      objectsType: query?.objectsType,
    };
    // A new node lets its own fields win; msg properties fill only the empty ones. It is valid
    // with its hidden fields as they come (an empty JSON Objects field once made it invalid).
    expect(saved).toEqual({
      taskId: String(task?.id),
      taskIdType: 'pick',
      operation: 'task',
      msgProperties: 'fill',
      valid: true,
      objectsType: 'json',
    });
    expect(problems).toEqual([]);
  });

  it("fills the task watch node's task list from the shared editor script and saves the pick", {
    timeout: 60_000,
  }, async () => {
    await openEditDialog('observation-task-watch', 'observation task status', 380);
    await page.waitForSelector('#node-input-taskMode');
    await page.selectOption('#node-input-server', 'server-1');
    await page.selectOption('#node-input-taskMode', 'pick');
    const options = page.locator('#node-input-tasks option');
    await expect.poll(() => options.count()).toBe(sim.world.tasks.length);
    await expect
      .poll(() => page.textContent('#observation-task-watch-tasks-status'))
      .toBe(`${sim.world.tasks.length} tasks`);
    const picked = sim.world.tasks[1];
    await page.selectOption('#node-input-tasks', [String(picked?.id)]);
    await clickDone();
    const watch = await savedNode('observation-task-watch');
    const saved = { taskMode: watch?.taskMode, tasks: watch?.tasks };
    expect(saved).toEqual({ taskMode: 'pick', tasks: [String(picked?.id)] });
    expect(problems).toEqual([]);
  });

  it('imports every example, one after the other, as separate flows sharing one server config; every node valid', {
    timeout: 60_000,
  }, async () => {
    const examplesDir = join(packageRoot, 'examples');
    const { readdirSync } = await import('node:fs');
    const flows = readdirSync(examplesDir)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => JSON.parse(readFileSync(join(examplesDir, name), 'utf8')) as unknown[]);
    const outcome = await page.evaluate((examples) => {
      type EditorNode = { id: string; type: string; name?: string; valid?: boolean; z?: string };
      const RED = (
        globalThis as unknown as {
          RED: {
            view: { importNodes(nodes: unknown[], options: object): void };
            nodes: {
              eachConfig(callback: (node: EditorNode) => void): void;
              filterNodes(filter: object): EditorNode[];
            };
          };
        }
      ).RED;
      // Every setting the editor has for our nodes is in the file (an empty Image wait or Keep-alive
      // field is what an import without it shows).
      const missing: string[] = [];
      for (const example of examples) {
        for (const node of example as Array<Record<string, unknown> & { type: string }>) {
          if (!node.type.startsWith('observation-')) continue;
          const type = (
            RED.nodes as unknown as { getType(type: string): { defaults: Record<string, unknown> } }
          ).getType(node.type);
          for (const key of Object.keys(type.defaults)) {
            if (!(key in node)) missing.push(`${node.type} ${String(node.id)} ${key}`);
          }
        }
      }
      const conflicts: string[][] = [];
      for (const example of examples) {
        try {
          // What Import → Examples does (Node-RED's clipboard import, ids as in the file).
          RED.view.importNodes(example, { generateIds: false, addFlow: false });
          conflicts.push([]);
        } catch (error) {
          const conflict = error as { code?: string; importConfig?: { conflicted: Record<string, unknown> } };
          if (conflict.code !== 'import_conflict') throw error;
          conflicts.push(Object.keys(conflict.importConfig?.conflicted ?? {}));
          // The notification's "Import copy": new ids for the flow, the existing server kept.
          RED.view.importNodes(example, { generateIds: true, addFlow: false });
        }
      }
      const servers: EditorNode[] = [];
      RED.nodes.eachConfig((node) => {
        if (node.type === 'observation-server' && node.name === 'Observation simulator') servers.push(node);
      });
      const ours = ['observation-events', 'observation-query', 'observation-task-watch'].flatMap((type) =>
        RED.nodes.filterNodes({ type }).filter((node) => node.z !== undefined),
      );
      return {
        missing,
        conflicts,
        servers: servers.length,
        imported: ours.length,
        validated: ours.filter((node) => typeof node.valid === 'boolean').length,
        invalid: ours.filter((node) => node.valid === false).map((node) => `${node.type} ${node.name ?? ''}`),
      };
    }, flows);
    expect(outcome.missing).toEqual([]);
    // The first import clashes with nothing; each later one only on the server config it shares.
    expect(outcome.conflicts[0]).toEqual([]);
    for (const conflict of outcome.conflicts.slice(1)) expect(conflict).toEqual(['obs-example-server']);
    expect(outcome.servers).toBe(1);
    expect(outcome.imported).toBeGreaterThanOrEqual(flows.length);
    // The editor checked each (as it marks invalid nodes with a red triangle) and found nothing.
    expect(outcome.validated).toBe(outcome.imported);
    expect(outcome.invalid).toEqual([]);
    expect(problems).toEqual([]);
  });
});
