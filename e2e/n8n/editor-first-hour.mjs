// A new user's first hour in the real n8n editor, by clicks and typing in headless chromium: create
// the Observation API credential with a wrong Service URL first (the editor must show our message
// naming the field and the fix), correct it (n8n's test passes), import every shipped example from
// its file, check that n8n put the new credential on its nodes and marks no node invalid, run each
// with "Execute workflow" and read the run back, publish the realtime trigger's example and check
// that it starts live (no catch-up of history). Runs inside the editor session of
// editor-screenshot.mjs (same n8n server, same browser). REST is used only to set the user up and
// to read results; every action under test is a click or a keystroke.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFlatted } from './execution-data.mjs';

/** A member of the instance, not the owner: the owner holds the e2e's CLI-imported credential, a first user has none. */
const firstUser = {
  email: 'first-user@example.com',
  firstName: 'First',
  lastName: 'User',
  password: 'First-user-pass-2024!',
};

export const credentialName = 'My Observation Service';

/** Markers n8n's canvas puts on a node it cannot run: parameter or credential issues, an execution error, a missing credential, a node type not installed. */
const invalidMarkers = ['node-issues', 'node-setup-required', 'node-not-installed'];

const trace = process.env.E2E_DEBUG
  ? (m) => console.log(`  [first hour ${new Date().toISOString().slice(11, 23)}] ${m}`)
  : () => {};

async function until(condition, timeoutMs, what) {
  const started = Date.now();
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Invites the first user as the owner would and accepts the invitation in the owner's browser
 * context, whose cookie becomes the first user's: the context keeps the editor's files cached
 * from the owner's session, so the first user's editor boots faster on a loaded runner.
 */
async function becomeFirstUser(context, base) {
  const invited = await context.request.post(`${base}/rest/invitations`, {
    data: [{ email: firstUser.email, role: 'global:member' }],
  });
  if (!invited.ok())
    throw new Error(`inviting the first user: HTTP ${invited.status()} ${await invited.text()}`);
  const acceptUrl = (await invited.json())?.data?.[0]?.user?.inviteAcceptUrl ?? '';
  const token = new URL(acceptUrl, base).searchParams.get('token');
  await context.clearCookies();
  const accepted = await context.request.post(`${base}/rest/invitations/accept`, {
    data: {
      token,
      firstName: firstUser.firstName,
      lastName: firstUser.lastName,
      password: firstUser.password,
    },
  });
  if (!accepted.ok())
    throw new Error(`accepting the invitation: HTTP ${accepted.status()} ${await accepted.text()}`);
}

/** The text of the credential dialog's red "Couldn't connect" banner, with its details opened as a user would. */
async function credentialError(page) {
  const banner = page
    .locator('.el-tag--danger')
    .filter({ hasText: /connect with these settings/ })
    .filter({ visible: true })
    .first();
  await banner.waitFor({ timeout: 60_000 });
  const more = banner.getByText('More details').filter({ visible: true });
  if ((await more.count()) > 0) await more.first().click();
  // n8n's banner puts the test's message in its details line (a CSS-module class, no test id).
  const details = banner.locator('[class*="_details_"]').filter({ visible: true }).first();
  await details.waitFor({ timeout: 15_000 });
  return ((await details.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

async function fillField(dialog, name, value) {
  const input = dialog.getByTestId(`parameter-input-${name}`).locator('input, textarea').first();
  await input.waitFor({ timeout: 30_000 });
  await input.fill(value);
}

/**
 * Step 1: Credentials → Create credential → Observation API; a wrong Service URL, then the right one.
 * @returns what the editor said to each.
 */
async function createCredential(page, { base, sim, wrongUrl, shot }) {
  trace('credentials page');
  await page.goto(`${base}/home/credentials`);
  await page.getByTestId('add-resource-credential').click({ timeout: 60_000 });
  await page.getByRole('combobox', { name: 'Search for app...' }).fill('Observation API');
  await page.getByTestId('new-credential-type-select-option').filter({ hasText: 'Observation API' }).click();
  await page.getByTestId('new-credential-type-button').click();
  const dialog = page.getByTestId('credential-edit-dialog');
  await dialog.waitFor({ timeout: 30_000 });
  trace('dialog open');
  await page.getByTestId('credential-name').click();
  const nameInput = page.getByTestId('credential-name').getByTestId('inline-edit-input');
  await nameInput.fill(credentialName);
  await nameInput.press('Enter');
  await fillField(dialog, 'url', wrongUrl);
  await fillField(dialog, 'serviceId', sim.serviceId);
  await dialog.getByTestId('parameter-input-authentication').click();
  await page.getByRole('option', { name: 'Email and Password' }).click();
  await fillField(dialog, 'email', sim.credentials.email);
  await fillField(dialog, 'password', sim.credentials.password);
  trace('typed');
  // Save runs n8n's credential test (preAuthentication, then the test request).
  await page.getByTestId('credential-save-button').click();
  const wrongUrlMessage = await credentialError(page);
  trace('error shown');
  if (shot) {
    await closeToasts(page);
    await page.screenshot({ path: shot });
  }
  // A path where the service has no API (the placeholder suggests a path): only reported, the
  // login's answer does not name the field yet (see the README).
  await fillField(dialog, 'url', `${sim.siteUrl}/wrong/place`);
  await page.getByTestId('credential-save-button').click();
  const wrongPathMessage = await until(
    async () => {
      const text = await credentialError(page);
      return text !== wrongUrlMessage ? text : undefined;
    },
    60_000,
    'the answer for a wrong path',
  ).catch((error) => String(error));
  trace('wrong path answered');

  await fillField(dialog, 'url', sim.siteUrl);
  await page.getByTestId('credential-save-button').click();
  let tested = false;
  try {
    await dialog
      .getByTestId('credentials-config-container-test-success')
      .filter({ visible: true })
      .waitFor({ timeout: 60_000 });
    tested = true;
  } catch {
    // reported by the check
  }
  trace('success shown');
  const afterFix = ((await dialog.textContent()) ?? '').replace(/\s+/g, ' ');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
  return { wrongUrlMessage, wrongPathMessage, tested, afterFix };
}

/**
 * Opens a menu (`open`: a click, or a hover for a submenu) again until `item` shows: on a loaded
 * runner the editor can let a click pass before it has wired its menu up, or keep the menu moving
 * in (a CI run with a bench beside it waited 60 s for an item one click never opened, and another
 * for a submenu item "not stable" to hover).
 */
async function openMenu(open, item, what) {
  await until(
    async () => {
      if (await item.isVisible()) return true;
      // A menu that closed under a slow editor makes the opening click or hover time out: the next
      // round opens it again instead of failing the step (CI once lost a whole import to it).
      await open().catch(() => undefined);
      return item.waitFor({ state: 'visible', timeout: 5_000 }).then(
        () => true,
        () => false,
      );
    },
    120_000,
    what,
  );
}

/**
 * Step 2: a new workflow from the sidebar's "+" (no page load: the editor takes 13-20 s to boot
 * on a loaded runner), then ⋯ → Import → From file. Returns the workflow's id.
 */
async function importExample(page, file, nodeCount) {
  trace('new workflow');
  const before = new URL(page.url()).pathname;
  const newWorkflow = page.getByText('New workflow', { exact: true }).filter({ visible: true }).first();
  await openMenu(
    () => page.getByTestId('universal-add').click({ timeout: 60_000 }),
    newWorkflow,
    "the add menu's New workflow",
  );
  await newWorkflow.click();
  await until(
    async () =>
      /\/workflow\//.test(new URL(page.url()).pathname) &&
      new URL(page.url()).pathname !== before &&
      (await page.getByTestId('canvas-node').count()) === 0 &&
      (await page.getByTestId('workflow-menu').count()) > 0,
    60_000,
    'an empty new workflow',
  );
  trace(`new workflow at ${page.url()}`);
  const importItem = page.getByTestId('workflow-menu-item-import');
  await openMenu(
    () => page.getByTestId('workflow-menu').click({ timeout: 60_000 }),
    importItem,
    "the workflow menu's Import item",
  );
  const fromFile = page.getByTestId('workflow-menu-item-import-from-file');
  // Forced: a menu still moving in is never "stable", and the hover only has to reach it. The
  // workflow menu may have closed meanwhile: it is opened again first.
  const openFromFile = () =>
    openMenu(
      async () => {
        if (!(await importItem.isVisible()))
          await page.getByTestId('workflow-menu').click({ timeout: 10_000 });
        await importItem.hover({ force: true, timeout: 10_000 });
      },
      fromFile,
      "the Import submenu's From file",
    );
  // The click opens the browser's file dialog. On a loaded runner the submenu can close under the
  // click (CI of 5ac21a3: no dialog in 30 s, and the wait left behind rejected later and ended
  // the whole run): the menu is opened again and clicked once more.
  const chooseFile = async () => {
    await openFromFile();
    const chooser = page.waitForEvent('filechooser', { timeout: 20_000 });
    chooser.catch(() => undefined);
    await fromFile.click({ timeout: 10_000 });
    return chooser;
  };
  const chooser = await chooseFile().catch((error) => {
    trace(`no file dialog (${String(error).split('\n')[0]}): the Import menu again`);
    return chooseFile();
  });
  await chooser.setFiles(file);
  trace('file chosen');
  await until(
    async () => (await page.getByTestId('canvas-node').count()) === nodeCount,
    60_000,
    'imported nodes',
  );
  trace('nodes on canvas');
  // The new workflow's address carries its id (n8n saves the import on its own).
  return until(
    () => /\/workflow\/([^/?#]+)$/.exec(new URL(page.url()).pathname)?.[1],
    60_000,
    'saved workflow',
  );
}

/** The canvas nodes carrying a marker of an invalid node: "name (marker)". */
async function invalidNodes(page) {
  const found = [];
  for (const node of await page.getByTestId('canvas-node').all()) {
    for (const marker of invalidMarkers) {
      if ((await node.getByTestId(marker).count()) > 0)
        found.push(`${await node.getAttribute('data-node-name')} (${marker})`);
    }
  }
  return found;
}

/** Closes n8n's notifications (bottom right) before a screenshot, so they cover nothing. */
async function closeToasts(page) {
  for (const close of await page.locator('.el-notification__closeBtn').filter({ visible: true }).all()) {
    await close.click().catch(() => undefined);
  }
  await page
    .locator('.el-notification')
    .filter({ visible: true })
    .first()
    .waitFor({ state: 'hidden', timeout: 10_000 })
    .catch(() => undefined);
}

/** The workflow as n8n saved it, once it has all its nodes. */
async function savedWorkflow(request, base, id, nodeCount) {
  return until(
    async () => {
      const response = await request.get(`${base}/rest/workflows/${id}`);
      const workflow = response.ok() ? (await response.json())?.data : undefined;
      return workflow?.nodes?.length === nodeCount ? workflow : undefined;
    },
    60_000,
    `workflow ${id} saved with ${nodeCount} nodes`,
  );
}

/**
 * Step 3: "Execute workflow", then every node's success marker on the canvas (or a marker of an
 * error); the run is read back through REST.
 */
async function executeAndRead(page, request, base, workflowId, nodeNames) {
  const before = await executionsOf(request, base, workflowId);
  const clickedAt = Date.now();
  await page.getByTestId('execute-workflow-button').click();
  const canvasNode = (name) => page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);
  let canvasEnd = 'success';
  try {
    await until(
      async () => {
        if ((await invalidNodes(page)).length > 0) return true;
        for (const name of nodeNames) {
          if ((await canvasNode(name).getByTestId('canvas-node-status-success').count()) === 0) return false;
        }
        return true;
      },
      120_000,
      'every node marked finished',
    );
    const invalid = await invalidNodes(page);
    if (invalid.length > 0) canvasEnd = `marked invalid or failed: ${invalid.join(', ')}`;
  } catch (error) {
    canvasEnd = String(error instanceof Error ? error.message : error);
  }
  const ms = Date.now() - clickedAt;
  trace('canvas done');
  const execution = await until(
    async () =>
      (await executionsOf(request, base, workflowId)).find(
        (e) => !before.some((b) => b.id === e.id) && e.status !== 'running' && e.status !== 'new',
      ),
    60_000,
    'the manual execution saved',
  ).catch(() => undefined);
  trace('execution listed');
  let runData = {};
  if (execution) {
    const response = await request.get(`${base}/rest/executions/${execution.id}`);
    if (response.ok()) {
      const run = parseFlatted((await response.json())?.data?.data ?? 'null');
      runData = run?.resultData?.runData ?? {};
    }
  }
  const items = (node) => runData[node]?.[0]?.data?.main?.[0] ?? [];
  const errors = Object.entries(runData)
    .filter(([, runs]) => runs.some((r) => r.error))
    .map(([node, runs]) => `${node}: ${runs.find((r) => r.error).error.message}`);
  return { canvasEnd, ms, execution, runData, items, errors };
}

async function executionsOf(request, base, workflowId) {
  const response = await request.get(
    `${base}/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
  );
  const body = response.ok() ? await response.json() : {};
  return (body?.data?.results ?? []).filter((e) => e.workflowId === workflowId);
}

/** The trigger's items of each production (trigger-mode) execution of a workflow, as record ids. */
async function productionIds(request, base, workflowId) {
  const ids = [];
  for (const execution of await executionsOf(request, base, workflowId)) {
    if (execution.mode !== 'trigger') continue;
    const response = await request.get(`${base}/rest/executions/${execution.id}`);
    if (!response.ok()) continue;
    const run = parseFlatted((await response.json())?.data?.data ?? 'null');
    for (const item of run?.resultData?.runData?.['Observation Trigger']?.[0]?.data?.main?.[0] ?? [])
      ids.push(item.json?.id);
  }
  return ids.sort((a, b) => a - b);
}

/**
 * Publishes the open workflow as a user does (Publish, then Publish in n8n's dialog) and waits
 * for the trigger's own subscription on the simulator.
 */
async function publishOpenWorkflow(page, sim) {
  const socketsBefore = sim.control.stats().openSockets;
  await page.getByTestId('workflow-open-publish-modal-button').click();
  trace('publish dialog');
  await page.getByTestId('workflow-publish-button').click();
  trace('publish clicked');
  await until(
    () => sim.control.stats().openSockets > socketsBefore,
    60_000,
    'the published trigger subscribed',
  );
  trace('subscribed');
  // n8n confirms with our trigger's activation message in a dialog: "Got it" closes it.
  const confirmation = page.getByTestId('activation-modal');
  await confirmation.getByText('Got it', { exact: true }).click();
  await confirmation.waitFor({ state: 'hidden' });
  return socketsBefore;
}

/**
 * A live event the person-alert trigger's filters take (person at ≥ 0.6), happening and published
 * now (no camera latency: one drawn from the simulator's realism can stamp it before the
 * trigger's start).
 */
async function publishMatchingEvent(sim) {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const [event] = await sim.control.emit(1, { latenessMs: 0 });
    if (event.detected_objects.some((o) => o.object_name === 'person' && o.confidence_score >= 0.6))
      return event;
  }
  throw new Error('the simulator published no person at ≥ 0.6 in 200 events');
}

/**
 * @param {{ context: import('playwright-core').BrowserContext (the owner's; it becomes the first user's),
 *   base: string, sim: any, examplesDir: string, shots?: { credentialError: string, actionPanel: string, exampleRun: string },
 *   check: (name: string, ok: unknown, detail?: string) => void, log: (m: string) => void }} options
 */
export async function firstHour({ context, base, sim, examplesDir, shots, check, log }) {
  const started = Date.now();
  await becomeFirstUser(context, base);
  const { request } = context;
  const page = await context.newPage();
  // Generous: a 2-core CI runner shared with other suites boots n8n's editor slowly.
  page.setDefaultTimeout(60_000);
  page.setDefaultNavigationTimeout(120_000);
  try {
    // A typo in the scheme: the address cannot be an Observation API at all.
    const wrongUrl = sim.siteUrl.replace(/^http:/, 'htp:');
    const credential = await createCredential(page, { base, sim, wrongUrl, shot: shots?.credentialError });
    check(
      `first hour: saving the credential with the Service URL "${wrongUrl}" shows our message naming the field and the fix: "${credential.wrongUrlMessage}"`,
      /Service URL/.test(credential.wrongUrlMessage) &&
        /enter the site URL/.test(credential.wrongUrlMessage) &&
        !credential.wrongUrlMessage.includes(sim.credentials.password),
      credential.wrongUrlMessage,
    );
    check(
      `first hour: a Service URL with a wrong path names the Service URL, not the password: "${credential.wrongPathMessage}"`,
      /Check the Service URL/.test(credential.wrongPathMessage) &&
        !/refused the login|password/i.test(credential.wrongPathMessage),
      credential.wrongPathMessage,
    );
    check(
      'first hour: with the Service URL corrected, saving shows "Connection tested successfully"',
      credential.tested,
      credential.afterFix.slice(0, 600),
    );
    const saved = await request.get(`${base}/rest/credentials`);
    const credentials = saved.ok() ? ((await saved.json())?.data ?? []) : [];
    const created = credentials.find((c) => c.name === credentialName);
    check(
      `first hour: the first user has exactly the credential made in the editor (${credentials.length})`,
      created !== undefined && credentials.length === 1,
      JSON.stringify(credentials.map((c) => c.name)),
    );
    log(`first hour: credential made through the editor in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const files = readdirSync(examplesDir)
      .filter((name) => name.endsWith('.workflow.json'))
      .sort();
    check(`first hour: the package ships example workflows (${files.join(', ')})`, files.length >= 3);
    for (const file of files) {
      const exampleStarted = Date.now();
      const example = JSON.parse(readFileSync(join(examplesDir, file), 'utf8'));
      const nodeNames = example.nodes.map((node) => node.name);
      let workflowId;
      try {
        workflowId = await importExample(page, join(examplesDir, file), nodeNames.length);
      } catch (error) {
        check(`first hour: ${file} imports from file`, false, String(error).slice(0, 600));
        continue;
      }
      // What the canvas shows right after the import, before anything ran.
      const invalid = await invalidNodes(page);
      trace('markers read');
      check(
        `first hour: ${file}: no node on the canvas is marked invalid`,
        invalid.length === 0,
        invalid.join(', '),
      );
      const realtime = example.nodes.some((node) => node.type.endsWith('.observationTrigger'));
      const published = realtime ? await publishMatchingEvent(sim) : undefined;
      const run = await executeAndRead(page, request, base, workflowId, nodeNames);
      // Saved meanwhile (n8n saves an imported workflow on its own; the run needs no save).
      const workflow = await savedWorkflow(request, base, workflowId, nodeNames.length).catch(
        () => undefined,
      );
      const withCredential = (workflow?.nodes ?? []).filter(
        (node) => 'observationApi' in (node.credentials ?? {}),
      );
      check(
        `first hour: ${file} imported from file; n8n put the new credential on its ${withCredential.length} Observation nodes`,
        withCredential.length > 0 &&
          withCredential.every((node) => node.credentials.observationApi.id === created?.id),
        JSON.stringify(workflow?.nodes?.map((n) => [n.name, n.credentials]) ?? null).slice(0, 600),
      );
      const ran = nodeNames.filter((name) => run.runData[name]);
      check(
        `first hour: ${file}: "Execute workflow" finishes with every node marked done and no error (${(run.ms / 1000).toFixed(1)} s)`,
        run.canvasEnd === 'success' &&
          run.execution?.status === 'success' &&
          ran.length === nodeNames.length &&
          run.errors.length === 0,
        `${run.canvasEnd}; execution ${JSON.stringify(run.execution ?? null)}; ran ${ran.join(', ')}; errors ${run.errors.join('; ')}`,
      );
      const triggerNode = example.nodes[0].name;
      const first = run.items(triggerNode);
      if (realtime) {
        check(
          `first hour: ${file}: the trigger's first run delivers one event, the one just published (id ${published?.id}), no replay of the ${sim.control.stats().eventsEmitted} published before or the history`,
          first.length === 1 && first[0]?.json?.id === published?.id,
          JSON.stringify(first.map((item) => ({ id: item.json?.id, occurredAt: item.json?.occurredAt }))),
        );
        // Published, as a user does once the test looks right: the first activation starts live
        // (Catch Up on Missed Events is on in this example, but there is nothing to catch up
        // from), so its executions are exactly the events published after it subscribed, up to a
        // sentinel that proves nothing else is on its way.
        await closeToasts(page);
        const socketsBefore = await publishOpenWorkflow(page, sim);
        const live = await publishMatchingEvent(sim);
        const sentinel = await publishMatchingEvent(sim);
        let ids = [];
        let waitEnded = '';
        // The trigger hands the two over in order, but n8n runs their executions side by side and
        // records an execution's items when it ends: the sentinel's can end first (CI of 41d6242
        // read [sentinel] while the other, waiting for its snapshot, still ran). Done once the
        // sentinel ran and no execution of the workflow is still going.
        await until(
          async () => {
            ids = await productionIds(request, base, workflowId);
            if (!ids.includes(sentinel.id)) return false;
            const going = (await executionsOf(request, base, workflowId)).filter((execution) =>
              ['new', 'running', 'waiting'].includes(execution.status),
            );
            return going.length === 0;
          },
          90_000,
          'the sentinel ran and nothing of the workflow still runs',
        ).catch((error) => {
          // Kept for the check's detail: CI of 83ce4d0 failed here within seconds with no items
          // and no word of why (a request that failed, not a wait that ran out).
          waitEnded = String(error?.message ?? error);
        });
        ids = await productionIds(request, base, workflowId);
        check(
          `first hour: ${file} published from the editor: its executions are the 2 events published after it subscribed (ids ${live.id}, ${sentinel.id}), no catch-up of the history or of the event its test run showed`,
          JSON.stringify(ids) === JSON.stringify([live.id, sentinel.id]),
          `trigger items: ${JSON.stringify(ids).slice(0, 400)}${waitEnded ? `; the wait ended: ${waitEnded.slice(0, 600)}` : ''}`,
        );
        // Tidied away (REST: not part of the first hour), so the later restarts of this n8n
        // activate only the e2e's own workflows.
        await request.post(`${base}/rest/workflows/${workflowId}/deactivate`);
        await until(
          () => sim.control.stats().openSockets === socketsBefore,
          30_000,
          'the unpublished trigger closed its subscription',
        ).catch(() => log('first hour: the unpublished trigger kept its subscription open'));
      } else if (example.nodes[0].type.endsWith('.observationTaskTrigger')) {
        // The example asks for Non-Operating and Unknown only: its test run shows the tasks in
        // those categories now (core's parseTaskStatus), or one sample change when there is none.
        const category = (status) => {
          const [head = '', ...rest] = String(status).split(',');
          const kind = head.trim().toLowerCase();
          return (kind === 'operating' || kind === 'non-operating') && rest.join(',').trim() !== ''
            ? kind
            : 'unknown';
        };
        const down = sim.world.tasks.filter((task) => category(task.status) !== 'operating');
        check(
          `first hour: ${file}: the Task Trigger's test run shows what its filter asks for: ${down.length > 0 ? `the ${down.length} tasks not operating now, each once` : 'one sample change, marked as a sample'}`,
          down.length > 0
            ? first.length === down.length &&
                first.every((item) => item.json?.type === 'initial') &&
                JSON.stringify(first.map((item) => item.json?.taskId).sort()) ===
                  JSON.stringify(down.map((task) => task.id).sort())
            : first.length === 1 && first[0]?.json?.sample === true,
          JSON.stringify(first.map((item) => item.json)).slice(0, 400),
        );
      } else {
        const events = run.items('Recent Events');
        const snapshots = run.items('Snapshot');
        check(
          `first hour: ${file}: 3 tasks, their recent events and every event's snapshot as binary data (${events.length} events); the unknown task answers with the 404 as an item`,
          run.items('Tasks').length === 3 &&
            events.length > 0 &&
            snapshots.length === events.length &&
            snapshots.every((item) => /^image\//.test(item.binary?.data?.mimeType ?? '')) &&
            /HTTP 404/.test(run.items('Unknown Task')[0]?.json?.error ?? ''),
          JSON.stringify({ snapshots: snapshots.length, unknown: run.items('Unknown Task') }).slice(0, 400),
        );
        if (shots) {
          await closeToasts(page);
          await page.screenshot({ path: shots.exampleRun });
        }
        // The action node's panel, as a user opens it to see why the snapshots did not fail.
        await page.locator('[data-test-id="canvas-node"][data-node-name="Snapshot"]').dblclick();
        const waitField = page
          .getByTestId('ndv')
          .getByText('Snapshot Wait (Seconds)')
          .filter({ visible: true })
          .first();
        const shown = await waitField.waitFor({ timeout: 30_000 }).then(
          () => true,
          () => false,
        );
        check("first hour: the Snapshot node's panel shows its Snapshot Wait (Seconds) field", shown);
        if (shots) {
          await closeToasts(page);
          await page.screenshot({ path: shots.actionPanel });
        }
        await page.keyboard.press('Escape');
      }
      log(`first hour: ${file} imported and run in ${((Date.now() - exampleStarted) / 1000).toFixed(1)} s`);
    }
  } finally {
    await page.close();
  }
  const ms = Date.now() - started;
  log(`first hour in the editor: ${(ms / 1000).toFixed(1)} s`);
  return { ms };
}
