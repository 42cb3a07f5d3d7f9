#!/usr/bin/env node
// The package installed by name and updated through n8n's own installer (Settings → Community
// nodes), from a registry, in a real n8n and a real browser (Debian's chromium, headless):
//
// 1. version 0.1.0, made by a changeset bump from 0.0.0 (local-release.mjs), is published to a
//    local Verdaccio (e2e/release/registry.mjs); in the editor: Install a community node, the
//    package's name, "I understand the risks", Install. n8n downloads it (npm pack, npm install
//    in its nodes folder); the nodes show in the node panel with their icons; the shipped person
//    alert example, published, runs against the simulator;
// 2. 0.1.1 (a patch changeset) is published, the screen offers the update, and Update is pressed
//    while the simulator streams: every matching event published before, during and after the
//    update reaches the end of the workflow, none twice, and the workflow is the same one.
//
// Why this n8n runs with E2E_TESTS=true: n8n 2.x installs from a registry other than npmjs.org
// only with an enterprise licence (feat:communityNodes:customRegistry) and our package is not
// on npmjs.org before its first release. E2E_TESTS=true makes n8n serve PATCH /rest/e2e/feature
// (no login), which turns that licence feature on for this instance. What else it changes in
// n8n 2.41 (dist/controllers/e2e.controller.js and the `inE2ETests` checks): every other
// licence feature reads off and the plan reads "Enterprise"; /rest/e2e/* test endpoints (reset,
// queue mode, push, ...) are served; telemetry, personalisation and external frontend hooks are
// off, AI is on; the `*_FILE` environment variables are not read; the editor's files are served
// without cache headers and may be framed; n8n's E2E test node is loaded; the MCP registry does
// not refresh; the editor shows an "E2E MODE" marker. None of that touches what is judged here
// (the installer, its npm calls, node loading, the trigger's executions); the marker is hidden
// in the screenshots. This n8n is its own start, on a user folder of its own, so none of it
// reaches the other e2e steps.
//
// Run alone: `node community-install.mjs` (packages/n8n-nodes built, n8n installed here);
// run-e2e.mjs runs it as a step. UPDATE_SCREENSHOTS=1 writes the screenshots into
// packages/n8n-nodes/docs.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
// Verdaccio is a dev dependency of e2e/release, where this module lives and resolves it.
import { startRegistry } from '../release/registry.mjs';
import { parseFlatted } from './execution-data.mjs';
import { localRelease } from './local-release.mjs';
import { printCheck } from './n8n-cli.mjs';
import {
  ensureN8nInstall,
  n8nBin,
  nodeBin,
  packageDir,
  packageName,
  packTarball,
  root,
  toolchainEnv,
  withCompileCache,
} from './n8n-install.mjs';
import { browserArgs, owner, playwrightFor, publishThroughRest, startN8nServer } from './n8n-server.mjs';
import { freePort, until } from './queue-mode/process-tools.mjs';
import { simulatorCredential } from './simulator-credential.mjs';

/** n8n's "E2E MODE" marker, hidden in the screenshots (the README shows n8n as users see it). */
const hideE2eMarker = '[data-test-id="e2e-test-mode-marker"] { display: none !important; }';
/** Matching events per phase of the stream (before, during and after the update). */
const perPhase = Number(process.env.N8N_UPDATE_EVENTS ?? 5);

/**
 * CPU seconds this process and its reaped children (n8n and its task runner, Verdaccio, npm,
 * chromium) have used, from Linux's /proc; undefined elsewhere. Every child of the step has
 * exited and been waited for when it ends, so the difference is the step's cost.
 */
function cpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  } catch {
    return undefined;
  }
}

/** Where the screenshots go in `dir` (packages/n8n-nodes/docs with UPDATE_SCREENSHOTS=1). */
export function communityShots(dir) {
  return {
    installed: join(dir, 'n8n-community-nodes-installed.png'),
    nodePanel: join(dir, 'n8n-community-nodes-panel.png'),
    update: join(dir, 'n8n-community-nodes-update.png'),
    updated: join(dir, 'n8n-community-nodes-updated.png'),
  };
}

/** An event the person alert example's filters take: a person at ≥ 0.6. */
function matches(event) {
  return event.detected_objects.some((o) => o.object_name === 'person' && o.confidence_score >= 0.6);
}

/** What n8n's REST API says is installed of our package (undefined when nothing). */
async function installedPackage(request, base) {
  const response = await request.get(`${base}/rest/community-packages`);
  if (!response.ok()) throw new Error(`GET community-packages: HTTP ${response.status()}`);
  return ((await response.json())?.data ?? []).find((p) => p.packageName === packageName);
}

/** The version npm put in n8n's nodes folder. */
function versionOnDisk(userFolder) {
  const file = join(userFolder, '.n8n', 'nodes', 'node_modules', ...packageName.split('/'), 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined;
}

/**
 * The record ids each trigger-mode execution of `workflowId` carried through its last node
 * (`endNode`), and the executions' statuses; one REST read per execution not read before.
 */
function executionReader(request, base, workflowId, endNode) {
  const seen = new Map();
  return async () => {
    const filter = encodeURIComponent(JSON.stringify({ workflowId }));
    const results = [];
    // n8n hands out at most 100 per page, newest first; 2.41 pages by the cursor it returns (it
    // refuses `lastId`: CI of 9794bbb read more than 100 executions on a loaded machine).
    for (let cursor; ; ) {
      const page = await request.get(
        `${base}/rest/executions?filter=${filter}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      if (!page.ok()) throw new Error(`GET executions: HTTP ${page.status()} ${await page.text()}`);
      const data = (await page.json())?.data;
      results.push(...(data?.results ?? []));
      cursor = data?.nextCursor;
      if (!cursor) break;
    }
    for (const execution of results) {
      if (execution.mode !== 'trigger' || seen.get(execution.id)?.final) continue;
      const final = execution.status !== 'running' && execution.status !== 'new';
      let ids = [];
      if (final) {
        const one = await request.get(`${base}/rest/executions/${execution.id}`);
        const run = one.ok() ? parseFlatted((await one.json())?.data?.data ?? 'null') : undefined;
        ids = (run?.resultData?.runData?.[endNode]?.[0]?.data?.main?.[0] ?? []).map((item) => item.json?.id);
      }
      seen.set(execution.id, { id: execution.id, status: execution.status, final, ids });
    }
    return [...seen.values()];
  };
}

/**
 * Settings → Community nodes → Install a community node, the name, "I understand the risks",
 * Install; resolves once the screen lists the package.
 */
async function installThroughScreen(page, base, name) {
  await page.goto(`${base}/settings/community-nodes`, { waitUntil: 'networkidle' });
  await page.getByRole('button', { name: 'Install a community node' }).click();
  const dialog = page.getByRole('dialog').filter({ hasText: 'Install community nodes' });
  await dialog.getByPlaceholder(/n8n-nodes-/).fill(name);
  await dialog.getByText('I understand the risks').click();
  await dialog.getByRole('button', { name: 'Install', exact: true }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 180_000 });
}

/**
 * Waits until n8n's toast saying `text` has slid fully into the page (for a screenshot); gives
 * up quietly after 10 s (the toast is not what is judged).
 */
async function toastIn(page, text) {
  const toast = page.locator('.el-notification').filter({ hasText: text }).first();
  const width = page.viewportSize()?.width ?? 1280;
  await until(
    async () => {
      const box = await toast.boundingBox().catch(() => null);
      return box !== null && box.x > 0 && box.x + box.width <= width;
    },
    10_000,
    100,
  ).catch(() => undefined);
}

/** The package's card on the Community nodes screen. */
function packageCard(page) {
  return page.getByTestId('community-package-card').filter({ hasText: packageName });
}

/** A node panel entry of one of our node types (n8n keys each entry by the type). */
function panelEntry(page, type) {
  return page.locator(`[data-keyboard-nav-id^="${packageName}.${type}-"]`);
}

/**
 * Searches the open node panel for "Observation" and reads, for each of `types`, its name and
 * whether its icon loaded (an <img> the browser fetched from n8n and decoded).
 */
async function searchPanel(page, types) {
  await page.getByTestId('node-creator-search-bar').fill('Observation');
  await until(
    async () => {
      for (const type of types) if ((await panelEntry(page, type).count()) === 0) return false;
      return true;
    },
    60_000,
    200,
    `the node panel lists ${types.join(', ')}`,
  ).catch(async (error) => {
    if (process.env.E2E_DEBUG)
      console.log(
        await page
          .getByTestId('node-creator')
          .innerHTML()
          .catch(() => 'no node panel'),
      );
    throw error;
  });
  const found = {};
  for (const type of types) {
    const entry = panelEntry(page, type).first();
    const img = entry.locator('img').first();
    found[type] = {
      name: (await entry.getByTestId('node-creator-item-name').first().textContent())?.trim(),
      icon:
        (await img.count()) > 0
          ? await img.evaluate((el) => (el.complete && el.naturalWidth > 0 ? el.getAttribute('src') : false))
          : false,
    };
  }
  return found;
}

/**
 * The node panel as a user opens it: on a new workflow ("What triggers this workflow?": n8n
 * lists the Observation Trigger under the entry of the Observation node, keyed by that node's
 * type, and the Observation Task Trigger), then on a workflow with a trigger ("What happens
 * next?": the Observation node). `shot` takes the first.
 */
async function nodePanel(page, base, workflowId, shot) {
  await page.goto(`${base}/workflow/new`, { waitUntil: 'networkidle' });
  await page.getByTestId('canvas-add-button').click();
  const triggers = await searchPanel(page, ['observation', 'observationTaskTrigger']);
  await page.mouse.move(1200, 780);
  if (shot) await page.screenshot({ path: shot });
  await page.keyboard.press('Escape');
  await page.goto(`${base}/workflow/${workflowId}`, { waitUntil: 'networkidle' });
  // The "+" at the canvas's top right, which opens the node panel.
  await page.getByTestId('node-creator-plus-button').click();
  const actions = await searchPanel(page, ['observation']);
  await page.keyboard.press('Escape');
  return [...Object.values(triggers), ...Object.values(actions)];
}

/**
 * @param {{ check: (name: string, ok: unknown, detail?: string) => void, log: (m: string) => void,
 *   env?: Record<string, string>, shots?: { installed: string, nodePanel: string, update: string, updated: string } }} options
 * @returns {Promise<{ installed?: string, updated?: string, events?: object, ms: number, cpuS?: number }>}
 */
export async function communityInstall({ check, log, env = toolchainEnv(), shots }) {
  const started = Date.now();
  const cpuStarted = cpuSeconds();
  const work = mkdtempSync(join(tmpdir(), 'observation-n8n-community-'));
  const userFolder = join(work, 'user');
  mkdirSync(userFolder);
  const { startSimulator } = await import(
    pathToFileURL(join(root, 'packages', 'simulator', 'dist', 'index.js')).href
  );
  const sim = await startSimulator({ port: 0, seed: 11, historySize: 50 });
  let registry;
  let server;
  let browser;
  /** Ends the event stream (once the update is judged, or when a step failed). */
  let endStream = async () => {};
  const result = { ms: 0 };
  try {
    mkdirSync(join(work, 'registry'));
    registry = await startRegistry(join(work, 'registry'));
    const release = localRelease(join(work, 'release'), packTarball(join(work, 'pack'), { env }), registry);
    const first = release.publish();
    check(
      `community install: a changeset bump from 0.0.0 (${release.pending} pending changesets) publishes the first version, 0.1.0, to a local registry`,
      first === '0.1.0',
      first,
    );
    server = await startN8nServer({
      nodeBin,
      n8nBin,
      port: await freePort(),
      env: withCompileCache({
        ...env,
        N8N_USER_FOLDER: userFolder,
        N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
        N8N_DIAGNOSTICS_ENABLED: 'false',
        N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
        N8N_TEMPLATES_ENABLED: 'false',
        N8N_PERSONALIZATION_ENABLED: 'false',
        N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
        DB_TYPE: 'sqlite',
        N8N_RUNNERS_BROKER_PORT: String(await freePort()),
        // See the top of this file: only for the licence feature a custom registry needs.
        E2E_TESTS: 'true',
        N8N_COMMUNITY_PACKAGES_REGISTRY: registry.url,
        // n8n passes --registry to `npm pack` and `npm install`, but asks `npm outdated` (the
        // screen's update check) with npm's own settings: without npm's registry set too, the
        // screen never offers an update from a custom registry.
        npm_config_registry: `${registry.url}/`,
        npm_config_cache: join(work, 'npm-cache'),
        npm_config_logs_dir: join(work, 'npm-logs'),
      }),
    });
    log(
      `community install: n8n (E2E_TESTS=true) up at ${server.base} in ${(server.readyMs / 1000).toFixed(1)} s`,
    );
    const playwright = playwrightFor(packageDir);
    playwright.selectors.setTestIdAttribute('data-test-id');
    browser = await playwright.chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: browserArgs,
    });
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
    });
    const { request } = context;
    const base = server.base;
    const setup = await request.post(`${base}/rest/owner/setup`, { data: owner });
    if (!setup.ok()) throw new Error(`owner setup: HTTP ${setup.status()} ${await setup.text()}`);
    // Without the licence feature n8n refuses the registry (the reason this n8n runs E2E_TESTS).
    const unlicensed = await request.post(`${base}/rest/community-packages`, { data: { name: packageName } });
    const unlicensedText = await unlicensed.text();
    check(
      'community install: without the custom registry licence, n8n refuses to install from a registry other than npmjs.org',
      !unlicensed.ok() && /customRegistry|licen[cs]e/i.test(unlicensedText),
      `HTTP ${unlicensed.status()} ${unlicensedText.slice(0, 300)}`,
    );
    const licensed = await request.patch(`${base}/rest/e2e/feature`, {
      data: { feature: 'feat:communityNodes:customRegistry', enabled: true },
    });
    if (!licensed.ok()) throw new Error(`PATCH /rest/e2e/feature: HTTP ${licensed.status()}`);

    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    page.setDefaultNavigationTimeout(120_000);
    await page.addStyleTag({ content: hideE2eMarker }).catch(() => undefined);
    page.on('load', () => page.addStyleTag({ content: hideE2eMarker }).catch(() => undefined));
    const installStarted = Date.now();
    await installThroughScreen(page, base, packageName);
    await packageCard(page).waitFor({ timeout: 60_000 });
    const installMs = Date.now() - installStarted;
    const cardText = ((await packageCard(page).textContent()) ?? '').replace(/\s+/g, ' ');
    if (shots) {
      await toastIn(page, 'Package installed');
      await page.screenshot({ path: shots.installed });
    }
    const installed = await installedPackage(request, base);
    result.installed = installed?.installedVersion;
    check(
      `community install: Settings → Community nodes → Install downloads ${packageName} 0.1.0 from the registry (${(installMs / 1000).toFixed(1)} s) and lists its 3 nodes; the screen shows it ("${cardText.slice(0, 120)}")`,
      installed?.installedVersion === '0.1.0' &&
        versionOnDisk(userFolder) === '0.1.0' &&
        installed.installedNodes?.length === 3 &&
        !installed.failedLoading &&
        cardText.includes('0.1.0'),
      JSON.stringify(installed ?? null).slice(0, 600),
    );

    // The shipped person alert example, on a credential of this n8n, published.
    const credential = simulatorCredential(sim, undefined);
    const saved = await request.post(`${base}/rest/credentials`, {
      data: { name: credential.name, type: credential.type, data: credential.data },
    });
    if (!saved.ok()) throw new Error(`saving the credential: HTTP ${saved.status()} ${await saved.text()}`);
    const credentialId = (await saved.json()).data.id;
    const example = JSON.parse(
      readFileSync(join(packageDir, 'examples', 'person-alert-with-snapshot.workflow.json'), 'utf8'),
    );
    for (const node of example.nodes)
      if (node.credentials?.observationApi)
        node.credentials.observationApi = { id: credentialId, name: credential.name };
    const created = await request.post(`${base}/rest/workflows`, {
      data: {
        name: example.name,
        nodes: example.nodes,
        connections: example.connections,
        settings: example.settings,
      },
    });
    if (!created.ok())
      throw new Error(`creating the workflow: HTTP ${created.status()} ${await created.text()}`);
    const workflowId = (await created.json()).data.id;
    const panel = await nodePanel(page, base, workflowId, shots?.nodePanel);
    check(
      `community install: the node panel lists our nodes with their icons (first step: ${panel
        .slice(0, 2)
        .map((entry) => `"${entry.name}"`)
        .join(', ')}; next step: "${panel[2]?.name}")`,
      panel.length === 3 && panel.every((entry) => /^Observation/.test(entry.name) && entry.icon),
      JSON.stringify(panel),
    );
    const socketsBefore = sim.control.stats().openSockets;
    await publishThroughRest(request, base, workflowId);
    await until(() => sim.control.stats().openSockets > socketsBefore, 60_000, 100, 'the trigger subscribed');
    const workflowBefore = (await (await getAgain(request, `${base}/rest/workflows/${workflowId}`)).json())
      .data;
    const executions = executionReader(request, base, workflowId, 'Alert Text');

    // 0.1.1 published; the screen offers it.
    const next = release.publish({
      bump: 'patch',
      summary: 'A rehearsal of a patch release, published by the n8n end-to-end test.',
    });
    await page.goto(`${base}/settings/community-nodes`, { waitUntil: 'networkidle' });
    const updateButton = packageCard(page).getByRole('button', { name: /update/i });
    const offered = await updateButton
      .waitFor({ timeout: 60_000 })
      .then(() => true)
      .catch(() => false);
    check(
      `community install: after ${next} is published, the Community nodes screen offers the update`,
      offered && next === '0.1.1',
      (
        (await packageCard(page)
          .textContent()
          .catch(() => '')) ?? ''
      ).replace(/\s+/g, ' '),
    );
    if (!offered) return result;

    // The stream: events published at a steady pace, each recorded with its phase; the phases
    // end on evidence (matching events seen at the end of the workflow, the screen's update).
    const published = [];
    let phase = 'before';
    let streaming = true;
    const stream = (async () => {
      while (streaming) {
        const [event] = await sim.control.emit(1, { latenessMs: 0 });
        published.push({ id: event.id, phase, matches: matches(event) });
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    })();
    endStream = async () => {
      streaming = false;
      await stream;
    };
    const matched = (which) => published.filter((e) => e.matches && (!which || e.phase === which));
    const endIds = async () => new Set((await executions()).flatMap((e) => e.ids));
    await until(
      async () => {
        const seen = await endIds();
        return matched('before').filter((e) => seen.has(e.id)).length >= perPhase;
      },
      120_000,
      250,
      'matching events reached the end before the update',
    );
    if (shots) await page.screenshot({ path: shots.update });
    phase = 'during';
    const connectionsBefore = sim.control.stats().connectionsTotal;
    const updateStarted = Date.now();
    await updateButton.click();
    // n8n asks to confirm the update in a dialog.
    const confirm = page.getByRole('dialog').filter({ hasText: /update/i });
    await confirm
      .getByRole('button', { name: /update/i })
      .last()
      .click();
    await until(
      async () => (await installedPackage(request, base))?.installedVersion === '0.1.1',
      180_000,
      250,
      'n8n updated the package',
    );
    await packageCard(page).getByText('0.1.1').first().waitFor({ timeout: 60_000 });
    const updateMs = Date.now() - updateStarted;
    phase = 'after';
    // Whether n8n restarted the trigger for the update (a new socket on the simulator).
    const newSockets = sim.control.stats().connectionsTotal - connectionsBefore;
    if (shots) {
      await toastIn(page, 'Package updated');
      await page.screenshot({ path: shots.updated });
    }
    await until(() => matched('after').length >= perPhase, 120_000, 100, 'matching events after the update');
    await endStream();
    const wanted = matched();
    await until(
      async () => {
        const all = await executions();
        const seen = new Set(all.flatMap((e) => e.ids));
        return wanted.every((e) => seen.has(e.id)) && all.every((e) => e.final);
      },
      180_000,
      500,
      'every matching event reached the end',
    ).catch(() => undefined);
    const all = await executions();
    const runs = new Map();
    for (const id of all.flatMap((e) => e.ids)) runs.set(id, (runs.get(id) ?? 0) + 1);
    const byPhase = Object.fromEntries(
      ['before', 'during', 'after'].map((p) => {
        const events = matched(p);
        return [
          p,
          {
            published: published.filter((e) => e.phase === p).length,
            matching: events.length,
            reachedEnd: events.filter((e) => runs.has(e.id)).length,
          },
        ];
      }),
    );
    const repeated = [...runs].filter(([, n]) => n > 1);
    const notMatching = published.filter((e) => !e.matches && runs.has(e.id));
    result.updated = (await installedPackage(request, base))?.installedVersion;
    result.events = byPhase;
    log(
      `community install: update ${(updateMs / 1000).toFixed(1)} s, ${newSockets} new trigger sockets during it; events ${JSON.stringify(byPhase)}`,
    );
    check(
      `community install: Update on the Community nodes screen replaces 0.1.0 by 0.1.1 (${(updateMs / 1000).toFixed(1)} s; n8n's record and its nodes folder)`,
      result.updated === '0.1.1' && versionOnDisk(userFolder) === '0.1.1',
      `${result.updated} / ${versionOnDisk(userFolder)}`,
    );
    check(
      `community install: while the trigger streams, every matching event published before, during and after the update reaches the end of the workflow once (${JSON.stringify(byPhase)})`,
      wanted.length > 0 &&
        matched('during').length > 0 &&
        wanted.every((e) => runs.get(e.id) === 1) &&
        repeated.length === 0 &&
        notMatching.length === 0 &&
        all.every((e) => e.status === 'success'),
      `lost: ${wanted
        .filter((e) => !runs.has(e.id))
        .map((e) => `${e.id} (${e.phase})`)
        .join(
          ', ',
        )}; repeated: ${JSON.stringify(repeated)}; not matching: ${notMatching.length}; statuses: ${JSON.stringify(all.map((e) => e.status))}`,
    );
    check(
      `community install: n8n does not restart the published trigger for the update: it keeps its socket (${newSockets} new on the simulator during the update)`,
      newSockets === 0,
      `new sockets: ${newSockets}`,
    );
    const workflowAfter = (await (await getAgain(request, `${base}/rest/workflows/${workflowId}`)).json())
      .data;
    check(
      'community install: the workflow runs unchanged through the update (same version, still published, the same nodes)',
      workflowAfter.versionId === workflowBefore.versionId &&
        workflowAfter.activeVersionId === workflowBefore.activeVersionId &&
        Boolean(workflowAfter.activeVersionId ?? workflowAfter.active) &&
        JSON.stringify(workflowAfter.nodes) === JSON.stringify(workflowBefore.nodes),
      JSON.stringify({
        before: [workflowBefore.versionId, workflowBefore.activeVersionId],
        after: [workflowAfter.versionId, workflowAfter.activeVersionId],
      }),
    );
    return result;
  } catch (error) {
    check(
      'community install: installed and updated through n8n’s Community nodes screen',
      false,
      `${String(error?.stack ?? error).slice(0, 1500)}\n--- n8n output ---\n${server?.output().slice(-2000) ?? ''}`,
    );
    return result;
  } finally {
    await endStream();
    await browser?.close();
    await server?.stop();
    await registry?.stop();
    await sim.stop();
    rmSync(work, { recursive: true, force: true });
    result.ms = Date.now() - started;
    result.cpuS = cpuStarted === undefined ? undefined : cpuSeconds() - cpuStarted;
    log(
      `community install and update: ${(result.ms / 1000).toFixed(1)} s, ${result.cpuS?.toFixed(1) ?? '?'} CPU-s (n8n, registry, npm, chromium and this process)`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const env = toolchainEnv();
  ensureN8nInstall({ env, log: console.log });
  const checks = [];
  const check = (name, ok, detail) => {
    checks.push(printCheck(name, ok, detail).ok);
  };
  const shots = process.env.UPDATE_SCREENSHOTS === '1' ? communityShots(join(packageDir, 'docs')) : undefined;
  await communityInstall({ check, log: console.log, env, shots });
  const failed = checks.filter((ok) => !ok).length;
  console.log(`community install: ${checks.length - failed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

/**
 * A GET asked once more when the socket it went out on was reset: n8n closes an idle keep-alive
 * socket as a request may go out on it (a CI run of 7eb7308 got `read ECONNRESET` here). A GET
 * changes nothing, so asking again is safe; any other failure is thrown.
 */
async function getAgain(request, url) {
  try {
    return await request.get(url);
  } catch (error) {
    if (!String(error?.message ?? error).includes('ECONNRESET')) throw error;
    return request.get(url);
  }
}
