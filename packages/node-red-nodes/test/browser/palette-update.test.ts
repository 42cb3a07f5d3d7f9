import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript module shared with the release rehearsal (e2e/release)
import { publishTarball, startRegistry } from '../../../../e2e/release/registry.mjs';
import { serverNode, TAB, tab } from '../harness/flows.js';
import { type FlowNode, packageRoot } from '../harness/node-red.js';
import { NodeRedProcess } from '../harness/node-red-process.js';
import { waitUntil } from '../harness/wait.js';
import { OUR_PALETTE_NODE, openEditor } from './open-editor.js';

const PACKAGE = '@observation-service/node-red-observation';
const repoRoot = join(packageRoot, '..', '..');
/**
 * The previous release, built from git: the last commit before the events node's messages got
 * `msg.matched` (56179e6, documented in its help by 48a77dc) and before its status rings went out
 * as catalog keys (5fb6b91), two changes a user sees. Its position files, flows and credentials
 * are what an update meets. The help tells the two versions apart in the editor.
 */
const PREVIOUS_COMMIT = 'b3230b7c5694c2c510bdbb21631b31fe7f995946';
const PREVIOUS = '0.1.0';
const NEXT = '0.1.1';
const VIEWPORT = { width: 1400, height: 900 };
/** Rewritten in docs/ only with UPDATE_SCREENSHOTS=1, as the editor test's pictures. */
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? join(packageRoot, 'docs', 'palette-installed.png')
    : join(tmpdir(), 'observation-node-red-screenshots', 'palette-installed.png');
/** npm installing from the local registry (its uplink fetches our dependencies) on a busy runner. */
const NPM_MS = 240_000;
const EDITOR_MS = 90_000;

type Registry = { url: string; npmrc: string; stop(): Promise<void> };

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/**
 * The package as PREVIOUS_COMMIT built it: that commit's files (`git archive`, no worktree to
 * clean up), its lockfile's dependencies from pnpm's store, core and the Node-RED package built
 * by their own build scripts, packed.
 */
function packPrevious(work: string): string {
  const dir = join(work, 'previous');
  mkdirSync(dir);
  try {
    run('git', ['cat-file', '-e', `${PREVIOUS_COMMIT}^{commit}`], repoRoot);
  } catch {
    throw new Error(
      `commit ${PREVIOUS_COMMIT} is not in this clone (a shallow clone?): git fetch --unshallow`,
    );
  }
  execFileSync('sh', ['-c', `git archive ${PREVIOUS_COMMIT} | tar -x -C "${dir}"`], { cwd: repoRoot });
  // --prefer-offline: everything comes from the store `npm run setup` filled, unless that
  // commit's lockfile names a version the store lacks.
  run(
    'pnpm',
    ['install', '--frozen-lockfile', '--prefer-offline', '--ignore-scripts', '--filter', `${PACKAGE}...`],
    dir,
  );
  run('pnpm', ['--filter', '@observation-service/core', 'run', 'build'], dir);
  run('pnpm', ['--filter', PACKAGE, 'run', 'build'], dir);
  return packInto(join(dir, 'packages', 'node-red-nodes'), join(work, 'previous-pack'));
}

/** `pnpm pack` of a package folder, as release.yml's publish packs it; the tarball's path. */
function packInto(packageDir: string, destination: string): string {
  mkdirSync(destination);
  run('pnpm', ['pack', '--pack-destination', destination], packageDir);
  const [tarball] = readdirSync(destination).filter((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack wrote no tarball in ${destination}`);
  return join(destination, tarball);
}

/**
 * The palette catalogue the editor searches (Node-RED's `editorTheme.palette.catalogues`), in
 * the format of catalogue.nodered.org, listing the release `offer`ed: the editor offers an
 * update when the catalogue's version is newer than the installed one.
 */
async function startCatalogue() {
  let version = PREVIOUS;
  const server: Server = createServer((_request, response) => {
    const now = new Date().toISOString();
    response.writeHead(200, {
      'content-type': 'application/json',
      // The editor fetches it from the page, which Node-RED serves from another port.
      'access-control-allow-origin': '*',
    });
    response.end(
      JSON.stringify({
        name: 'Local test catalogue',
        updated_at: now,
        modules: [
          {
            id: PACKAGE,
            version,
            description: 'Node-RED nodes for the Observation Service: realtime AI camera events and queries.',
            updated_at: now,
            types: [
              'observation-server',
              'observation-events',
              'observation-query',
              'observation-task-watch',
            ],
            keywords: ['node-red', 'observation'],
          },
        ],
      }),
    );
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/catalogue.json`,
    offer(next: string) {
      version = next;
    },
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

/** The editor's view of a node (read only). */
interface EditorNode {
  id: string;
  type: string;
  valid?: boolean;
}
interface EditorApi {
  nodes: {
    node(id: string): EditorNode | undefined;
    getType(type: string): { defaults: Record<string, { value: unknown }> } | undefined;
  };
}

/**
 * Install by name through Manage palette, from a local npm registry, then an update through the
 * same screen while a deployed flow receives events (issue 42, Node-RED). The previous release is
 * built from an earlier commit of this repository; the next is this commit's build. Node-RED 5
 * only, as every browser test: the palette screen and npm's part are the same on 4.
 */
describe('install and update through Manage palette, from a local registry', () => {
  let work: string;
  let registry: Registry;
  let catalogue: Awaited<ReturnType<typeof startCatalogue>>;
  let sim: Simulator;
  let red: NodeRedProcess;
  let browser: Browser | undefined;
  let page: Page;
  let problems: string[];
  let flow: FlowNode[];
  const timings: Record<string, number> = {};
  const timed = async <T>(name: string, step: () => T | Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await step();
    } finally {
      timings[name] = Date.now() - started;
    }
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'observation-palette-'));
    mkdirSync(join(work, 'registry'));
    [registry, catalogue, sim] = await Promise.all([
      timed('registry', () => startRegistry(join(work, 'registry')) as Promise<Registry>),
      startCatalogue(),
      startSimulator({ seed: 42 }),
    ]);
    const previous = await timed('pack previous', () => packPrevious(work));
    await timed('publish previous', () => publishTarball(registry, previous, work, PREVIOUS));
    red = NodeRedProcess.create({ palette: { catalogue: catalogue.url } });
    // What a user writes to install from another registry; npm's cache stays in the test's folder.
    writeFileSync(
      join(red.userDir, '.npmrc'),
      `registry=${registry.url}/\ncache=${join(work, 'npm-cache')}\n`,
    );
    await red.start(60_000);
  }, 300_000);

  afterAll(async () => {
    console.log(`[palette] timings (ms): ${JSON.stringify(timings)}`);
    await browser?.close();
    await red?.dispose();
    await registry?.stop();
    await catalogue?.close();
    await sim?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Opens Manage palette from the main menu on `tab` ('install' or 'nodes'). */
  async function managePalette(view: 'install' | 'nodes'): Promise<void> {
    await page.click('#red-ui-header-button-sidemenu');
    await page.click('#menu-item-edit-palette');
    await page.click(`#red-ui-tab-${view} a`);
  }

  async function closeManagePalette(): Promise<void> {
    await page.locator('.red-ui-tray-toolbar button', { hasText: 'Close' }).click();
    await page.locator('.red-ui-palette-editor').waitFor({ state: 'hidden' });
  }

  /** Types `text` in the open Manage palette tab's search box (it searches on each key). */
  async function search(text: string): Promise<void> {
    const input = page.locator('.red-ui-palette-editor-tab:visible .red-ui-palette-search input');
    await input.fill(text);
    await input.press('End');
  }

  /** Our package's entry in the open Manage palette tab. */
  const packageEntry = () =>
    page
      .locator('.red-ui-palette-editor-tab:visible .red-ui-editableList-item-content')
      .filter({ has: page.locator('.red-ui-palette-module-name', { hasText: PACKAGE }) });

  it('installs by name through Manage palette: nodes under observation, their help and the examples', async () => {
    ({ browser, page, problems } = await openEditor(
      red.baseUrl,
      VIEWPORT,
      EDITOR_MS,
      '.red-ui-palette-node[data-palette-type="inject"]',
    ));
    // Every step waits for what the editor shows; a loaded 2-core runner may take a while.
    page.setDefaultTimeout(60_000);
    await managePalette('install');
    await page
      .locator('#red-ui-palette-module-install-shade')
      .waitFor({ state: 'hidden', timeout: EDITOR_MS });
    await search(PACKAGE);
    await packageEntry().getByText('install', { exact: true }).click();
    await page.click('.red-ui-palette-module-install-confirm-button-install');
    await timed('install', () => page.locator(OUR_PALETTE_NODE).waitFor({ timeout: NPM_MS }));

    // The palette: our nodes under their own category.
    for (const type of ['observation-events', 'observation-query', 'observation-task-watch'])
      await page
        .locator(`#red-ui-palette-container-observation .red-ui-palette-node[data-palette-type="${type}"]`)
        .waitFor({ state: 'attached' });
    // Manage palette's Nodes tab: the package, its version and its nodes, beside the palette
    // filtered to them: the README's picture.
    await page.locator('#red-ui-palette-search input').fill('observation');
    await page.locator('#red-ui-palette-search input').press('End');
    await page.locator('#red-ui-palette-container-common').waitFor({ state: 'hidden' });
    await page.click('#red-ui-tab-nodes a');
    await search(PACKAGE);
    // The list is filtered after a short delay: ours is left alone.
    await expect
      .poll(() =>
        page.locator('.red-ui-palette-editor-tab:visible .red-ui-palette-module-name:visible').count(),
      )
      .toBe(1);
    expect(await packageEntry().locator('.red-ui-palette-module-version').textContent()).toContain(PREVIOUS);
    await packageEntry().locator('.red-ui-palette-module-set-button').click();
    await packageEntry().getByText('observation-task-watch', { exact: true }).first().waitFor();
    // The list slides open (jQuery): the picture once it is still.
    await page.waitForFunction(
      () => (globalThis as unknown as { $: (s: string) => { length: number } }).$(':animated').length === 0,
    );
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    console.log(`[palette] screenshot: ${SCREENSHOT}`);
    await closeManagePalette();
    await page.locator('#red-ui-palette-search .red-ui-searchBox-clear').click();

    // The events node's help, from the palette node's pop-up, in the sidebar.
    await page.hover(OUR_PALETTE_NODE);
    await page.locator('.red-ui-popover button[aria-label="Show help"]').click();
    const help = page
      .locator('.red-ui-help')
      .filter({ hasText: 'Sends a message for every AI-detected event' });
    await help.first().waitFor();
    // 0.1.0 is that earlier commit's build: its help has no msg.matched yet (see the update's end).
    expect(await help.first().textContent()).not.toContain('matched');

    // Import → Examples lists the package's examples.
    await page.click('#red-ui-header-button-sidemenu');
    await page.click('#menu-item-import');
    await page.locator('.red-ui-tab', { hasText: 'Examples' }).click();
    await page.locator('.red-ui-clipboard-dialog-tab-library:visible').getByText(PACKAGE).click();
    const shipped = readdirSync(join(packageRoot, 'examples'))
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.replace(/\.json$/, ''));
    for (const example of shipped)
      await page.locator('.red-ui-clipboard-dialog-tab-library:visible').getByText(example).waitFor();
    await page.click('#red-ui-clipboard-dialog-cancel');
    expect(problems).toEqual([]);
  }, 400_000);

  it('updates through Manage palette while events flow: a restart, no invalid node, each event once, settings kept', async () => {
    // The flow, with the events node as 0.1.0's editor makes one (its defaults) and a recorder.
    const defaults = await page.evaluate(() => {
      const type = (globalThis as unknown as { RED: EditorApi }).RED.nodes.getType('observation-events');
      return Object.fromEntries(
        Object.entries(type?.defaults ?? {}).map(([key, field]) => [key, field.value]),
      );
    });
    const recorded = join(red.userDir, 'recorded.log');
    flow = [
      tab(),
      serverNode(sim),
      {
        id: 'events',
        type: 'observation-events',
        z: TAB,
        ...defaults,
        name: 'camera events',
        server: 'server-1',
        wires: [['record']],
      },
      { id: 'record', type: 'test-file-sink', z: TAB, filename: recorded, wires: [] },
    ];
    await red.deploy(flow);
    const flowsFile = () => [red.readFile('flows.json'), red.readFile('flows_cred.json')];
    const deployed = flowsFile();
    await waitUntil(() => sim.control.stats().openSockets === 1, 30_000, 'connected');
    // A fresh start is live from its start second: the stream begins once the node is past it.
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    const lines = () =>
      existsSync(recorded)
        ? readFileSync(recorded, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => Number(line.split(' ')[0]))
        : [];
    /** Each event published, with when its publication was asked for and answered. */
    const emitted: { id: number; asked: number; answered: number }[] = [];
    let streaming = true;
    const stream = (async () => {
      while (streaming) {
        const asked = Date.now();
        for (const event of await sim.control.emit(1, { latenessMs: 0 }))
          emitted.push({ id: event.id, asked, answered: Date.now() });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    let whileStopped: number[] = [];
    let whileUpdating = 0;
    let recordedBeforeRestart = 0;
    try {
      await waitUntil(() => lines().length >= 5, 30_000, 'events recorded by 0.1.0');
      // 0.1.1 is released: in the registry, and the catalogue (read when the editor loads) offers it.
      const next = packInto(packageRoot, join(work, 'next-pack'));
      publishTarball(registry, next, work, NEXT);
      catalogue.offer(NEXT);
      await page.reload();
      await page.locator(OUR_PALETTE_NODE).waitFor({ timeout: EDITOR_MS });
      problems.length = 0;
      await managePalette('nodes');
      const update = packageEntry().getByText(`update to ${NEXT}`);
      await update.click();
      await page.click('.red-ui-palette-module-install-confirm-button-update');
      // npm runs in the user dir while the flow keeps running on 0.1.0's code.
      const updateFrom = Date.now();
      await timed('update', () =>
        page.getByText('Node-RED must be restarted to enable upgraded modules').waitFor({ timeout: NPM_MS }),
      );
      const updateTo = Date.now();
      whileUpdating = emitted.filter(
        (event) => event.asked >= updateFrom && event.answered <= updateTo,
      ).length;
      await expect
        .poll(async () => await packageEntry().locator('.red-ui-palette-module-version').textContent())
        .toMatch(new RegExp(`${PREVIOUS}.*${NEXT}`));
      expect(JSON.parse(red.readFile('node_modules', PACKAGE, 'package.json') ?? '{}').version).toBe(NEXT);

      // The restart the palette asks for: Node-RED stopped as a service manager stops it, started again.
      let stopped = 0;
      let started = 0;
      await timed('restart', async () => {
        await red.stop();
        stopped = Date.now();
        recordedBeforeRestart = lines().length;
        await red.start(60_000);
        started = Date.now();
      });
      whileStopped = emitted
        .filter((event) => event.asked > stopped && event.answered < started)
        .map((event) => event.id);
      await waitUntil(() => sim.control.stats().openSockets === 1, 30_000, 'connected again');
      await waitUntil(() => lines().length > recordedBeforeRestart + 5, 30_000, 'events recorded by 0.1.1');
    } finally {
      streaming = false;
      await stream;
    }
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    await waitUntil(() => lines().includes(sentinel?.id as number), 60_000, 'the sentinel');
    const all = [...emitted.map((event) => event.id), sentinel?.id as number];
    const got = lines();
    console.log(
      `[palette] update: ${all.length} events published (${whileUpdating} while npm updated, ${whileStopped.length} while Node-RED restarted), ${got.length} recorded, ${got.length - new Set(got).size} repeated`,
    );
    // Each event exactly once; those published while Node-RED was down came after its restart,
    // from the position 0.1.0 saved.
    const byId = (a: number, b: number) => a - b;
    expect([...got].sort(byId)).toEqual([...all].sort(byId));
    expect(whileStopped.length).toBeGreaterThan(0);
    expect(got.slice(recordedBeforeRestart)).toEqual(expect.arrayContaining(whileStopped));

    // The flow runs as it was: the saved flows untouched, and the editor opens it with 0.1.1's
    // nodes (its help lists msg.matched, which 0.1.0's did not) and no invalid node.
    expect(flowsFile()).toEqual(deployed);
    await page.goto(red.baseUrl);
    await page.locator(OUR_PALETTE_NODE).waitFor({ timeout: EDITOR_MS });
    // Our nodes as the editor holds them, once it has loaded them: their type is known (not
    // `unknown`) and none is invalid (red triangle). The recorder is a test node with no editor
    // file: the editor knows it as `unknown`, so it is left out.
    const ours = flow.filter((node) => node.type.startsWith('observation-'));
    const editorNodes = () =>
      page.evaluate(
        (ids) => {
          const RED = (globalThis as unknown as { RED: EditorApi }).RED;
          return ids.flatMap((id) => {
            const node = RED.nodes.node(id);
            return node ? [{ id, type: node.type, valid: node.valid }] : [];
          });
        },
        ours.map((node) => node.id),
      );
    await expect.poll(async () => (await editorNodes()).length, { timeout: 30_000 }).toBe(ours.length);
    const nodes = await editorNodes();
    expect(nodes.map(({ id, type }) => ({ id, type }))).toEqual(ours.map(({ id, type }) => ({ id, type })));
    expect(nodes.filter((node) => node.valid === false)).toEqual([]);
    await page.hover(OUR_PALETTE_NODE);
    await page.locator('.red-ui-popover button[aria-label="Show help"]').click();
    await page.locator('.red-ui-help').filter({ hasText: 'matched' }).first().waitFor();
    expect(problems).toEqual([]);
  }, 600_000);
});
