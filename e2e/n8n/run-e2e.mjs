#!/usr/bin/env node
// End-to-end: the PACKED @observation-service/n8n-nodes-observation tarball installed into a real
// n8n (2.41.0, this folder's own install, outside the root workspace) the way n8n's community
// nodes screen installs a package, then a workflow imported and executed through n8n's CLI
// against the simulator (built dist, port 0). Prints its timings and "N passed, N failed", and
// adds its checks to packages/n8n-nodes/.vitest-report.json so `npm test` counts them.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startSink } from './crash-restart.mjs';
import { credentialTests } from './credential-checks.mjs';
import { firstHour } from './editor-first-hour.mjs';
import { captureEditor } from './editor-screenshot.mjs';
import {
  addLoginExpiryTask,
  checkLoginExpiry,
  loginExpiryWorkflow,
  loginExpiryWorkflowId,
  startLoginExpirySink,
} from './login-expiry.mjs';
import { checkList, headlessN8nEnv, n8n, n8nEnv, seconds, until } from './n8n-cli.mjs';
import {
  ensureN8nInstall,
  e2eDir as here,
  installIntoN8n,
  n8nBin,
  nodeBin,
  packageDir,
  packTarball,
  root,
  toolchainEnv,
} from './n8n-install.mjs';
import {
  owner,
  playwrightFor,
  publishThroughRest,
  startN8nServer,
  workflowExecutions,
} from './n8n-server.mjs';
import { reportChecks } from './package-report.mjs';
import { freePort } from './queue-mode/process-tools.mjs';
import { writeSimulatorCredential } from './simulator-credential.mjs';
import { addStaticDataTasks, countsInOneActivation, staticDataWorkflow } from './static-data.mjs';
import {
  outageExecutions,
  outageRun,
  outageWorkflowId,
  recordedStatus,
  savedStaticData,
  taskOutageWorkflow,
} from './task-outage.mjs';

const env = toolchainEnv();

function log(message) {
  console.log(`\x1b[35m[e2e n8n]\x1b[0m ${message}`);
}

async function main() {
  const startedAll = Date.now();
  const install = ensureN8nInstall({ env, log });
  if (!install.installed) log('n8n install is cached');
  const installMs = install.ms;
  const workDir = mkdtempSync(join(tmpdir(), 'observation-n8n-e2e-'));
  const userFolder = join(workDir, 'user');
  mkdirSync(userFolder);
  const { checks, check } = checkList();
  const { startSimulator } = await import(
    pathToFileURL(join(root, 'packages', 'simulator', 'dist', 'index.js')).href
  );
  const sim = await startSimulator({ port: 0, seed: 3, historySize: 300 });
  const expirySink = await startLoginExpirySink();
  try {
    const runStarted = Date.now();
    const tarball = packTarball(join(workDir, 'pack'), { env });
    const packedBytes = readFileSync(tarball).length;
    const installed = installIntoN8n(tarball, userFolder, { env });
    check(
      `the packed tarball (${(packedBytes / 1024).toFixed(1)} KB) installs with no runtime dependencies`,
      installed.runtimeDependencies === 0,
    );

    const encryptionKey = randomBytes(24).toString('hex');
    const { credential, file: credentialsFile } = writeSimulatorCredential(sim, workDir);
    // Both example workflows, the task outage, login expiry and static data workflows: one CLI call.
    const workflowsDir = join(workDir, 'workflows');
    mkdirSync(workflowsDir);
    for (const name of [
      'query-tasks-events-snapshot.workflow.json',
      'person-alert-with-snapshot.workflow.json',
    ]) {
      cpSync(join(packageDir, 'examples', name), join(workflowsDir, name));
    }
    const watchedTask = sim.world.tasks.find((task) => task.status === 'operating, normal');
    if (!watchedTask) throw new Error('the simulator seeded no task in "operating, normal"');
    writeFileSync(
      join(workflowsDir, 'task-outage.workflow.json'),
      JSON.stringify(taskOutageWorkflow(sim, credential, watchedTask.id)),
    );
    // Published for the restart's session (step 5), where every token expires while it streams.
    const expiryTask = addLoginExpiryTask(sim);
    writeFileSync(
      join(workflowsDir, 'login-expiry.workflow.json'),
      JSON.stringify(loginExpiryWorkflow(credential, expirySink.url, expiryTask)),
    );
    // Published in the restart's session (step 5): a Code node counting in static data.
    const staticDataTasks = addStaticDataTasks(sim);
    const staticDataSink = await startSink();
    /** Per activation of the static data check: what n8n held, what the executions counted. */
    const staticDataCounts = [];
    writeFileSync(
      join(workflowsDir, 'static-data.workflow.json'),
      JSON.stringify(staticDataWorkflow(credential, staticDataSink.url, staticDataTasks)),
    );
    const importCredentials = await n8n(
      ['import:credentials', `--input=${credentialsFile}`],
      userFolder,
      encryptionKey,
    );
    check('n8n import:credentials', importCredentials.status === 0, importCredentials.stderr.slice(-800));
    const importWorkflow = await n8n(
      ['import:workflow', '--separate', `--input=${workflowsDir}`],
      userFolder,
      encryptionKey,
    );
    check(
      'n8n import:workflow (both examples, the task outage, login expiry and static data workflows)',
      importWorkflow.status === 0,
      importWorkflow.stderr.slice(-800),
    );

    const executeStarted = Date.now();
    const execution = await n8n(
      ['execute', '--id=obsQueryExample1', '--rawOutput'],
      userFolder,
      encryptionKey,
      'info',
    );
    const executeMs = Date.now() - executeStarted;
    const stdout = execution.stdout;
    if (process.env.E2E_DEBUG) console.log(stdout.slice(0, 3000), execution.stderr.slice(0, 2000));
    check(
      'n8n execute exits 0',
      execution.status === 0,
      `${stdout.slice(-800)}\n${execution.stderr.slice(-1500)}`,
    );
    let runData = {};
    try {
      // The run is the last multi-line JSON document the CLI printed.
      const start = stdout.lastIndexOf('\n{\n') + 1;
      const end = stdout.lastIndexOf('\n}') + 2;
      const parsed = JSON.parse(stdout.slice(start, end));
      runData = parsed?.data?.resultData?.runData ?? parsed?.resultData?.runData ?? {};
    } catch (error) {
      check('n8n execute prints the run as JSON', false, String(error));
    }
    const items = (node) => runData[node]?.[0]?.data?.main?.[0] ?? [];
    const tasks = items('Tasks');
    check(
      'Tasks: 3 tasks with the parsed status',
      tasks.length === 3 && tasks.every((item) => typeof item.json?.statusParsed?.category === 'string'),
      JSON.stringify(tasks).slice(0, 300),
    );
    const events = items('Recent Events');
    check(
      'Recent Events: history of each task, normalized',
      events.length > 0 &&
        events.every((item) => typeof item.json?.eventName === 'string' && Array.isArray(item.json?.objects)),
      JSON.stringify(runData['Recent Events']?.[0]?.error ?? events.slice(0, 1)).slice(0, 400),
    );
    const snapshots = items('Snapshot');
    check(
      'Snapshot: the image as binary data',
      snapshots.length > 0 &&
        snapshots.length === events.length &&
        snapshots.every((item) => /^image\//.test(item.binary?.data?.mimeType ?? '')),
      JSON.stringify(runData.Snapshot?.[0]?.error ?? snapshots.slice(0, 1)).slice(0, 400),
    );
    const unknown = items('Unknown Task');
    check(
      'Unknown Task: continue-on-fail item with the 404 message',
      unknown.length === 1 && /HTTP 404/.test(unknown[0]?.json?.error ?? ''),
      JSON.stringify(unknown).slice(0, 300),
    );
    check(
      'no secret in the CLI output',
      !stdout.includes(sim.credentials.password) && !execution.stderr.includes(sim.credentials.password),
    );
    const loginsAfterCli = sim.control.stats().logins;
    check(
      `the simulator served reads and one login (email and password; n8n saved the token with the credential): ${loginsAfterCli}`,
      loginsAfterCli === 1 && sim.control.stats().requests > 3,
    );

    // The editor, in a real browser: the trigger example workflow on the canvas and its panel.
    for (const id of ['obsTriggerExample1', outageWorkflowId]) {
      const publish = await n8n(['publish:workflow', `--id=${id}`], userFolder, encryptionKey);
      check(
        `n8n publish:workflow ${id} (its trigger runs in production when n8n starts)`,
        publish.status === 0,
        publish.stderr.slice(-800),
      );
    }
    const keep = process.env.UPDATE_SCREENSHOTS === '1';
    const shots = keep ? join(packageDir, 'docs') : workDir;
    mkdirSync(shots, { recursive: true });
    const editorStarted = Date.now();
    try {
      const editor = await captureEditor({
        packageDir,
        nodeBin,
        n8nBin,
        env: n8nEnv(userFolder, encryptionKey, 'warn', await freePort()),
        port: await freePort(),
        workflowId: 'obsTriggerExample1',
        canvasPng: join(shots, 'n8n-editor-canvas.png'),
        panelPng: join(shots, 'n8n-editor-trigger-panel.png'),
        eventPng: join(shots, 'n8n-editor-trigger-test-event.png'),
        // Production: n8n activates the published workflow at start; events become executions.
        afterStart: async (request, base) => {
          await until(() => sim.control.stats().openSockets >= 1, 60_000);
          const sockets = sim.control.stats().openSockets;
          // The polling Task Trigger polled when n8n activated it: statuses recorded, nothing reported.
          // Its first poll may save a moment after the realtime trigger subscribed (a loaded CI
          // runner read the static data before it): read until the record is there, or 60 s.
          let baseline;
          await until(
            async () => {
              baseline = await savedStaticData(request, base);
              return recordedStatus(baseline, watchedTask.id) !== undefined;
            },
            60_000,
            250,
          ).catch(() => undefined);
          const baselineExecutions = await outageExecutions(request, base);
          const loginsByServer = sim.control.stats().logins - loginsAfterCli;
          const credentialChecks = await credentialTests(request, base, sim);
          sim.control.setRate(10);
          let executions = [];
          try {
            await until(
              async () => {
                executions = (await workflowExecutions(request, base, 'obsTriggerExample1')) ?? [];
                return executions.filter((e) => e.status === 'success').length >= 2;
              },
              60_000,
              250,
            );
          } catch {
            // reported by the checks below
          } finally {
            sim.control.setRate(0);
          }
          return { sockets, executions, baseline, baselineExecutions, loginsByServer, credentialChecks };
        },
        liveEventsEmitted: () => sim.control.stats().eventsEmitted,
        // A first user's hour in the same editor session: credential, every example imported and run.
        firstHour: async (context, base) => {
          try {
            return await firstHour({
              context,
              base,
              sim,
              examplesDir: join(packageDir, 'examples'),
              shots: keep
                ? {
                    credentialError: join(shots, 'n8n-editor-credential-error.png'),
                    actionPanel: join(shots, 'n8n-editor-action-snapshot-wait.png'),
                    exampleRun: join(shots, 'n8n-editor-example-run.png'),
                  }
                : undefined,
              check,
              log,
            });
          } catch (error) {
            check(
              "first hour: a first user's steps in the editor complete",
              false,
              String(error?.stack ?? error).slice(0, 2000),
            );
          }
        },
        log,
      });
      const production = editor.production ?? { sockets: 0, executions: [] };
      check(
        'production: the activated trigger holds exactly one subscription',
        production.sockets === 1,
        `open sockets: ${production.sockets}`,
      );
      check(
        'production: live events start executions of the published workflow',
        production.executions.filter((e) => e.status === 'success').length >= 2 &&
          production.executions.every((e) => e.mode === 'trigger' && e.status !== 'error'),
        JSON.stringify(production.executions).slice(0, 400),
      );
      try {
        await until(() => sim.control.stats().openSockets === 0, 15_000);
        check('stopping n8n closes the subscription (no socket left open)', true);
      } catch {
        check(
          'stopping n8n closes the subscription (no socket left open)',
          false,
          `open sockets: ${sim.control.stats().openSockets}`,
        );
      }
      const checked = production.credentialChecks;
      check(
        "n8n's credential test passes for a good email and password (n8n logs in, one login)",
        checked?.good?.status === 'OK',
        JSON.stringify(checked?.good),
      );
      check(
        `n8n's credential test fails a wrong password with the service's reason: "${checked?.wrongPassword?.message}"`,
        checked?.wrongPassword?.status === 'Error' &&
          /refused the login \(HTTP 401\)/.test(checked.wrongPassword.message) &&
          !checked.wrongPassword.message.includes('Not-The-Password-913'),
        JSON.stringify(checked?.wrongPassword),
      );
      check(
        `n8n's credential test fails a wrong access token naming the field: "${checked?.wrongToken?.message}"`,
        checked?.wrongToken?.status === 'Error' &&
          /Access Token/.test(checked.wrongToken.message) &&
          !checked.wrongToken.message.includes('wrong-token-8812'),
        JSON.stringify(checked?.wrongToken),
      );
      check(
        `n8n's credential test passes for a good access token: ${JSON.stringify(checked?.goodToken)}`,
        checked?.goodToken?.status === 'OK',
      );
      // A Service URL at a port nobody listens on: the message names the field, the host and port it
      // gave and what to check (n8n's own would be the bare "ECONNREFUSED"), in both modes, and for a
      // credential whose earlier test saved its check with it.
      const refusedAt = checked?.refusedUrl ? new URL(checked.refusedUrl).origin : '?';
      for (const [what, result] of [
        ['email and password', checked?.refusedLogin],
        ['access token', checked?.refusedToken],
        ['access token, tested before', checked?.retestedToken],
      ]) {
        check(
          `n8n's credential test for a Service URL at a port nobody listens on (${what}) names the field: "${result?.message}"`,
          result?.status === 'Error' &&
            result.message ===
              `Nothing answered at ${refusedAt} (the connection was refused). Check the Service URL (host and port) and that the service is running there.`,
          JSON.stringify(result),
        );
      }
      check(
        `the credential tests logged in once each for the two email-and-password credentials: ${checked?.logins}`,
        checked?.logins === 2,
      );
      check(
        'the n8n server logged in 0 times when it activated the realtime trigger and the polling trigger: both used the token the CLI process had saved with the credential',
        production.loginsByServer === 0,
        `logins by the server: ${production.loginsByServer}`,
      );
      check(
        "the polling Task Trigger's first poll (at activation) recorded the task statuses in the workflow's static data and reported nothing",
        recordedStatus(production.baseline, watchedTask.id) === watchedTask.status &&
          production.baselineExecutions?.length === 0,
        JSON.stringify(production.baseline ?? null).slice(0, 300),
      );
      check('the n8n editor shows the nodes on the canvas (headless chromium)', editor.canvasHasNodes);
      check('the Observation Trigger panel shows its parameters', editor.panelShowsParameters);
      check(
        `"Test this trigger" in the editor shows the newest event from history at once, marked testEvent, with no live event published (${editor.testEventMs ?? '-'} ms from the click)`,
        editor.testEventShown,
      );
      log(
        `editor screenshots ${keep ? 'updated in packages/n8n-nodes/docs' : 'taken'} in ${seconds(editorStarted)}`,
      );
    } catch (error) {
      check('the n8n editor opens in headless chromium', false, String(error).slice(0, 2000));
    }
    // n8n is stopped: the watched task fails meanwhile. The next start must report it.
    sim.control.setTaskStatus(watchedTask.id, 'operating, disconnected');
    /** n8n again on this user folder, headless: every start after the editor session. */
    const startHeadless = async () =>
      startN8nServer({
        nodeBin,
        n8nBin,
        env: await headlessN8nEnv(userFolder, encryptionKey),
        port: await freePort(),
      });
    /** A REST client of `server` logged in as its owner (disposed here if the login fails). */
    const ownerApi = async (server) => {
      const client = await playwrightFor(packageDir).request.newContext();
      const login = await client.post(`${server.base}/rest/login`, {
        data: { emailOrLdapLoginId: owner.email, password: owner.password },
      });
      if (login.ok()) return client;
      const answer = `HTTP ${login.status()} ${await login.text()}`;
      await client.dispose();
      throw new Error(`login failed: ${answer}`);
    };
    const restartStarted = Date.now();
    const loginsBeforeRestart = sim.control.stats().logins;
    let restarted;
    let api;
    try {
      restarted = await startHeadless();
      api = await ownerApi(restarted);
      // The login expiry check's workflow, published in this session as the editor's Publish does
      // (the running n8n's REST API instead of an `n8n publish:workflow` start before it).
      const expiryPublished = await publishThroughRest(api, restarted.base, loginExpiryWorkflowId).then(
        () => undefined,
        (error) => String(error),
      );
      check(
        `n8n's REST API publishes ${loginExpiryWorkflowId} (a login that expires, in the restart's session)`,
        expiryPublished === undefined,
        expiryPublished,
      );
      let executions = [];
      await until(
        async () => {
          executions = await outageExecutions(api, restarted.base);
          return executions.some((e) => e.status !== 'running' && e.status !== 'new');
        },
        60_000,
        250,
      ).catch(() => undefined);
      const finished = executions.find((e) => e.status === 'success');
      const run = finished ? await outageRun(api, restarted.base, finished.id) : { trigger: [], tasks: [] };
      const [reported] = run.trigger;
      check(
        `polling Task Trigger: the outage that began while n8n was stopped is reported at the first poll after the start (${seconds(restartStarted)} after starting n8n)`,
        executions.length === 1 &&
          finished !== undefined &&
          run.trigger.length === 1 &&
          reported?.type === 'changed' &&
          reported?.taskId === watchedTask.id &&
          reported?.status === 'operating, disconnected' &&
          reported?.previousStatus === 'operating, normal',
        JSON.stringify({ executions, trigger: run.trigger }).slice(0, 600),
      );
      check(
        'HTTP Request node with the Observation API as predefined credential type read /tasks (n8n added the token and the service id)',
        run.tasks.length === 3 &&
          run.tasks.every((task) => Number.isInteger(task.id) && typeof task.status === 'string'),
        JSON.stringify(run.tasks).slice(0, 400),
      );
      check(
        'after the restart nothing logged in again (the token saved with the credential was reused)',
        sim.control.stats().logins === loginsBeforeRestart,
        `logins: ${sim.control.stats().logins - loginsBeforeRestart}`,
      );
      // The same session: the trigger example's socket and this check's own.
      const expiry = await checkLoginExpiry({
        sim,
        sink: expirySink,
        taskId: expiryTask,
        output: restarted.output,
        check,
        sockets: 2,
      });
      log(`a login that expires: ${JSON.stringify(expiry)}`);
      // Issue 52: what a Code node keeps in $getWorkflowStaticData('global') beside the trigger,
      // published here and left published for n8n's next start (below).
      staticDataCounts.push(
        await countsInOneActivation({
          sim,
          sink: staticDataSink,
          tasks: staticDataTasks,
          request: api,
          base: restarted.base,
          userFolder,
          publish: true,
          thenCount: true,
          unpublish: false,
        }).catch((error) => String(error)),
      );
      check(
        `static data: n8n's log warns at activation that "Code" keeps values in the workflow's static data`,
        restarted.output().includes(`"Code" keeps values in the workflow's static data`),
        restarted.output().slice(-1500),
      );
    } catch (error) {
      check('n8n starts again for the polling trigger check', false, String(error).slice(0, 2000));
    } finally {
      await api?.dispose();
      await restarted?.stop();
    }
    log(`restart with the polling trigger check: ${seconds(restartStarted)}`);

    // Static data across n8n's own restart: n8n activates the workflow left published at its start
    // (`init`), and the trigger loads the count the last session stored.
    const staticDataStarted = Date.now();
    let again;
    let againApi;
    try {
      again = await startHeadless();
      againApi = await ownerApi(again);
      await until(() => sim.control.stats().openSockets >= 1, 60_000);
      staticDataCounts.push(
        await countsInOneActivation({
          sim,
          sink: staticDataSink,
          tasks: staticDataTasks,
          request: againApi,
          base: again.base,
          userFolder,
          publish: false,
        }),
      );
    } catch (error) {
      staticDataCounts.push(String(error).slice(0, 1000));
    } finally {
      await againApi?.dispose();
      await again?.stop();
      await staticDataSink.close();
    }
    check(
      `static data: a Code node counting in $getWorkflowStaticData('global'), across n8n's restart (the second activation is n8n's start, loading what n8n stored): ${JSON.stringify(staticDataCounts)}; each time the trigger's save is the last, n8n holds the count the activation loaded (every count since is lost: the README's limit)`,
      staticDataCounts.length === 2 &&
        staticDataCounts.every((counts) => typeof counts === 'object') &&
        staticDataCounts[1].atStart > 0 &&
        staticDataCounts.every(
          ({ atStart, seen, after }) => after === atStart && Math.max(...seen) > atStart,
        ),
      JSON.stringify(staticDataCounts),
    );
    log(`static data across n8n's restart: ${seconds(staticDataStarted)}`);

    log(
      `install ${installMs ? `${(installMs / 1000).toFixed(1)} s (first run)` : 'cached'}; run ${seconds(runStarted)} (n8n execute ${(executeMs / 1000).toFixed(1)} s); total ${seconds(startedAll)}`,
    );
  } finally {
    await expirySink.close();
    await sim.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
  reportChecks(checks, {
    part: 'e2e',
    file: join(here, 'run-e2e.mjs'),
    suite: 'real n8n e2e',
    label: 'e2e',
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
