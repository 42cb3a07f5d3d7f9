#!/usr/bin/env node
// `npm run demo:n8n`: the simulator and a real n8n (e2e/n8n's install, installed here on first
// use) with the packed @observation-service/n8n-nodes-observation installed as a community
// package, an "Observation account" credential for the simulator, the package's example
// workflows imported and the trigger workflows published (active). scripts/run.mjs installs and
// builds first, then runs this with Node 24.
//
// Environment: N8N_DEMO_PORT (5678), SIMULATOR_PORT (8080), 0 = any free port; DEMO_HOST
// (127.0.0.1); DEMO_RATE (live events/s, 1); DEMO_SEED (1); DEMO_DIR (.demo);
// DEMO_LOG_LEVEL (n8n's log level, warn); DEMO_N8N_RESTART_SECONDS (5: n8n stopped or killed from
// outside is started again after this long, while the simulator keeps publishing).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simulatorCredential } from '../../e2e/n8n/simulator-credential.mjs';
import { ensureN8nInstalled, installPackedNodes, n8nPaths } from './n8n-install.mjs';
import { expectedSockets, triggerWorkflows } from './n8n-workflows.mjs';
import { checkPortFree, freePort, PortError } from './ports.mjs';
import { DemoSettingError, readSettings } from './settings.mjs';
import { exitWithParent, onShutdown } from './shutdown.mjs';
import { startDemoSimulator } from './simulator.mjs';

const startedAt = performance.now();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const paths = n8nPaths(root);
const env = {
  ...process.env,
  PATH: `${dirname(paths.nodeBin)}${delimiter}${process.env.PATH ?? ''}`,
};
const CREDENTIAL_ID = 'obsCredential01';
const show = (path) => {
  const relativePath = relative(root, path);
  return relativePath.startsWith('..') ? path : relativePath;
};

function log(message) {
  console.log(`\x1b[35m[demo n8n]\x1b[0m ${message}`);
}

function fail(message, code = 1) {
  console.error(`\x1b[31m[demo n8n]\x1b[0m ${message}`);
  process.exit(code);
}

let settings;
try {
  settings = readSettings(root);
} catch (error) {
  if (error instanceof DemoSettingError) fail(error.message, 2);
  throw error;
}
for (const path of [
  join(root, 'packages', 'simulator', 'dist', 'index.js'),
  join(paths.packageDir, 'dist'),
]) {
  if (!existsSync(path))
    fail(`not built yet (${show(path)} missing): run \`npm run demo:n8n\`, which builds first.`);
}
try {
  await checkPortFree(settings.simulatorPort, settings.host, 'simulator', 'SIMULATOR_PORT');
  await checkPortFree(settings.n8nPort, settings.host, 'n8n', 'N8N_DEMO_PORT');
} catch (error) {
  if (error instanceof PortError) fail(error.message);
  throw error;
}

try {
  ensureN8nInstalled(paths, env, log);
} catch (error) {
  fail(
    `installing n8n failed: ${error instanceof Error ? error.message : error}\n` +
      "The install is e2e/n8n's (see e2e/n8n/README.md); `npm start` (Node-RED) does not need it.",
  );
}

const userFolder = join(settings.dir, 'n8n');
mkdirSync(userFolder, { recursive: true });
const version = installPackedNodes(paths, userFolder, env);
// The checkout's version: 0.0.0 between releases (the first release is 0.1.0), not a release.
const built =
  version === '0.0.0'
    ? 'a build of this checkout, unreleased: 0.0.0; releases start at 0.1.0'
    : `a build of this checkout at ${version}`;
log(`packed ${show(paths.packageDir)} (${built}) installed as a community package in ${show(userFolder)}`);

let sim;
try {
  sim = await startDemoSimulator(root, settings, log);
} catch (error) {
  fail(error.message);
}

/** n8n's settings for every call: its own user folder, sqlite, nothing phoning home. */
async function n8nEnv(extra = {}) {
  return {
    ...env,
    N8N_USER_FOLDER: userFolder,
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_LOG_LEVEL: settings.logLevel,
    DB_TYPE: 'sqlite',
    // Our package is a community package n8n has not verified: say explicitly that it may load.
    N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
    // The task broker would otherwise take the fixed port 5679.
    N8N_RUNNERS_BROKER_PORT: String(await freePort()),
    ...extra,
  };
}

/** One n8n CLI command, in its own process group so nothing of it outlives the demo. */
let cliChild;
async function n8nCli(args) {
  const child = spawn(paths.nodeBin, [paths.n8nBin, ...args], {
    cwd: userFolder,
    env: await n8nEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  cliChild = child;
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    output += chunk;
  });
  const status = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  cliChild = undefined;
  if (status !== 0) throw new Error(`n8n ${args[0]} failed (exit ${status}):\n${output.slice(-2000)}`);
  return output;
}

/**
 * What n8n prints that is about the network this demo may lack (n8n's calls to its own cloud:
 * templates, the community package registry, the licence), not about the demo: said once, not
 * at every retry around the banner.
 */
const offlineNoise = /api\.n8n\.io|A system task run failed/;
let offlineSaid = false;

let server;
/** Set once the demo is up: where n8n listens, for a restart after it stopped. */
let demoRunning;
let restartTimer;
let stopping = false;
const stopAll = onShutdown(async () => {
  stopping = true;
  clearTimeout(restartTimer);
  for (const child of [cliChild, server]) {
    if (child && child.exitCode === null && child.signalCode === null) await stopGroup(child);
  }
  await sim.stop();
}, 'n8n and the simulator');
exitWithParent(stopAll);

/** SIGTERM to n8n's process group (n8n and its task runner), SIGKILL after 20 s. */
async function stopGroup(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
  // A task runner that outlived n8n would keep running in the group: end it too.
  signal('SIGKILL');
}

const workDir = join(userFolder, '.demo-import');
try {
  // The credential: plain data in a file only the import reads (owner-only, deleted at once);
  // n8n stores it encrypted with its instance key. Same id on every start: updated in place.
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true, mode: 0o700 });
  const credentialsFile = join(workDir, 'credentials.json');
  writeFileSync(credentialsFile, JSON.stringify([simulatorCredential(sim, CREDENTIAL_ID)]), { mode: 0o600 });
  log('importing the credential and the example workflows (each n8n command takes a few seconds)');
  await n8nCli(['import:credentials', `--input=${credentialsFile}`]);
  rmSync(credentialsFile, { force: true });

  const examplesDir = join(paths.packageDir, 'examples');
  const examples = readdirSync(examplesDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ name, workflow: JSON.parse(readFileSync(join(examplesDir, name), 'utf8')) }));
  await n8nCli(['import:workflow', '--separate', `--input=${examplesDir}`]);
  const triggers = triggerWorkflows(examples);
  for (const { workflow } of triggers) await n8nCli(['publish:workflow', `--id=${workflow.id}`]);

  const port = settings.n8nPort === 0 ? await freePort(settings.host) : settings.n8nPort;
  const callHost = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  const base = `http://${callHost}:${port}`;
  await startN8n(port, callHost);
  await waitForN8n(base);
  const owner = await ensureOwner(base);
  // Each published Observation Trigger opens its realtime socket when n8n activates it; the Task
  // Trigger polls and opens none, so it is not waited for.
  const sockets = expectedSockets(examples);
  const connected = await waitFor(() => sim.control.stats().openSockets >= sockets, 60_000);
  printBanner({ base, owner, examples, triggers, connected });
  demoRunning = { base, port, callHost };
} catch (error) {
  console.error(`\x1b[31m[demo n8n]\x1b[0m ${error instanceof Error ? error.message : error}`);
  stopAll('start failed', 1);
}

/** `n8n start` on the demo's user folder; its output goes to ours, prefixed. */
async function startN8n(port, callHost) {
  server = spawn(paths.nodeBin, [paths.n8nBin, 'start'], {
    cwd: userFolder,
    env: await n8nEnv({
      N8N_PORT: String(port),
      N8N_LISTEN_ADDRESS: settings.host,
      N8N_HOST: callHost,
      N8N_PROTOCOL: 'http',
      // Plain http on this machine: the session cookie cannot be "secure".
      N8N_SECURE_COOKIE: 'false',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const started = server;
  for (const stream of [started.stdout, started.stderr]) {
    stream.setEncoding('utf8').on('data', (chunk) => {
      // Stack frames of n8n's own warnings (e.g. its registry refresh when offline) bury the banner.
      for (const line of chunk.split('\n')) {
        if (!line.trim() || /^\s+at /.test(line)) continue;
        if (offlineNoise.test(line)) {
          if (!offlineSaid)
            log(
              'n8n cannot reach its own cloud (api.n8n.io) from here: its templates and update checks stay off; the demo does not need them',
            );
          offlineSaid = true;
          continue;
        }
        console.log(`\x1b[35m[n8n]\x1b[0m ${line}`);
      }
    });
  }
  started.once('exit', (code, signal) => {
    if (stopping || (code === null && signal === null)) return;
    if (demoRunning === undefined) {
      stopAll(`n8n exited (code ${code}, signal ${signal})`, 1);
      return;
    }
    // Stopped or killed from outside while the demo runs (trying what a crash does): the simulator
    // keeps publishing, and n8n starts again as a service manager would start it. A task runner
    // of the killed n8n would outlive it in its process group: ended first.
    try {
      process.kill(-started.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
    log(
      `n8n exited (code ${code}, signal ${signal}); the simulator keeps publishing. Starting n8n again in ${settings.n8nRestartSeconds} s: its triggers then catch up what was published meanwhile (Ctrl-C stops the demo).`,
    );
    restartTimer = setTimeout(() => void restartN8n(), settings.n8nRestartSeconds * 1000);
  });
  log(`n8n started (pid ${started.pid}: stop or kill it to try a restart; the demo starts it again)`);
}

/** n8n again on the same port and user folder, after it stopped while the demo ran. */
async function restartN8n() {
  const { base, port, callHost } = demoRunning;
  try {
    await startN8n(port, callHost);
    await waitForN8n(base);
    log(`n8n is back at ${base}/`);
  } catch (error) {
    console.error(`\x1b[31m[demo n8n]\x1b[0m ${error instanceof Error ? error.message : error}`);
    stopAll('n8n did not start again', 1);
  }
}

async function waitFor(condition, timeoutMs) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) return false;
    await new Promise((wake) => setTimeout(wake, 500));
  }
  return true;
}

async function waitForN8n(base) {
  // /healthz answers before the REST routes are mounted; the settings route means ready, once it
  // answers with JSON. A page (HTML, status 200) is another server on the port: a CI run's demo
  // took Verdaccio's answer for n8n's and failed parsing it ("Unexpected token '<'"); now it waits
  // until n8n, unable to listen, exits and says why.
  const ready = await waitFor(async () => {
    if (server.exitCode !== null) throw new Error(`n8n exited with code ${server.exitCode}`);
    try {
      const response = await fetch(`${base}/rest/settings`);
      return response.ok && (response.headers.get('content-type') ?? '').includes('application/json');
    } catch {
      return false;
    }
  }, 180_000);
  if (!ready) throw new Error(`n8n did not answer ${base}/rest/settings within 180 s`);
}

/**
 * n8n needs an owner account before its editor opens. The demo creates one on the first start,
 * with a random password kept owner-only in the demo's n8n folder and printed on every start.
 */
async function ensureOwner(base) {
  const file = join(userFolder, 'demo-owner.json');
  let owner = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  const response = await fetch(`${base}/rest/settings`);
  const body = await response.json();
  const needsSetup = body?.data?.userManagement?.showSetupOnFirstLoad === true;
  if (!needsSetup) return owner;
  owner = {
    email: 'demo@example.com',
    // n8n asks for 8+ characters with a digit and an upper-case letter.
    password: `Demo-${randomBytes(9).toString('base64url')}-9`,
  };
  const setup = await fetch(`${base}/rest/owner/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...owner, firstName: 'Demo', lastName: 'Owner' }),
  });
  if (!setup.ok) throw new Error(`n8n owner setup failed: HTTP ${setup.status} ${await setup.text()}`);
  writeFileSync(file, JSON.stringify(owner, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  return owner;
}

function printBanner({ base, owner, examples, triggers, connected }) {
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
  const bold = (text) => `\x1b[1m${text}\x1b[0m`;
  const lines = [
    '',
    bold(`Observation Service n8n demo is running (ready in ${seconds} s)`),
    '',
    `  n8n editor:         ${bold(`${base}/`)}`,
    owner
      ? `  n8n login:          ${owner.email} / ${owner.password}   (kept in ${show(join(userFolder, 'demo-owner.json'))})`
      : `  n8n login:          the owner account created in ${show(userFolder)} earlier`,
    `  simulator site:     ${sim.siteUrl}`,
    `  service id:         ${sim.serviceId}`,
    `  demo credentials:   ${sim.credentials.email} / ${sim.credentials.password}   (n8n credential "Observation account")`,
    `  simulator control:  POST ${sim.siteUrl}/__control/<action>   (no authentication: demo only)`,
    `  live events:        ${settings.rate} per second, form both, seed ${settings.seed}`,
    '',
    '  Workflows:',
    ...examples.map(
      ({ workflow }) =>
        `    ${workflow.name}${triggers.some((t) => t.workflow.id === workflow.id) ? '   (published: runs on every matching event, see Executions)' : '   (open it and click "Execute workflow")'}`,
    ),
    connected
      ? '  The Observation Trigger is connected to the simulator: events are flowing.'
      : '  \x1b[33mThe Observation Trigger has not connected to the simulator yet: open its workflow and check its credential.\x1b[0m',
    `  n8n user folder:    ${show(userFolder)}   (git-ignored)`,
    `  try a crash:        kill n8n (kill -9 ${server?.pid ?? '<pid>'}): the simulator keeps publishing and the demo starts n8n again in ${settings.n8nRestartSeconds} s; the trigger catches up what was published meanwhile`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ];
  console.log(lines.join('\n'));
}
