#!/usr/bin/env node
// `npm start`: the simulator (built dist, both forms, seeded, live events) and Node-RED with
// @observation-service/node-red-observation loaded and the example flows deployed against it,
// plus Dashboard 2 with the event gallery widget on a second tab ("Dashboard").
// scripts/run.mjs installs and builds first, then runs this with Node 24.
// The simulator runs in this process, Node-RED in a child process (node-red-child.mjs): stopped
// or killed from outside, Node-RED is started again while the simulator keeps publishing, as a
// service manager would, so a crash can be tried. Stopping this process (Ctrl-C, SIGTERM,
// SIGHUP, or the parent going away) stops both and leaves nothing behind.
//
// Environment: NODE_RED_PORT (1880), SIMULATOR_PORT (8080), 0 = any free port; DEMO_HOST
// (127.0.0.1); DEMO_RATE (live events/s, 1); DEMO_SEED (1); DEMO_TASK_WATCH_SECONDS (10);
// DEMO_DIR (.demo); DEMO_LOG_LEVEL (Node-RED's console log level, warn);
// DEMO_NODE_RED_RESTART_SECONDS (5: Node-RED stopped or killed from outside is started again
// after this long).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DASHBOARD_PAGE_PATH, dashboardFlows } from './demo/dashboard-flows.mjs';
import { demoLogin, userSettingsFile } from './demo/node-red.mjs';
import { demoFlows, detectFeatures, SERVER_ID } from './demo/node-red-flows.mjs';
import { startNodeRedProcess } from './demo/node-red-process.mjs';
import { checkPortFree, PortError } from './demo/ports.mjs';
import { DemoSettingError, readSettings } from './demo/settings.mjs';
import { exitWithParent, onShutdown } from './demo/shutdown.mjs';
import { startDemoSimulator } from './demo/simulator.mjs';

const startedAt = performance.now();
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const packageDir = join(root, 'packages', 'node-red-nodes');
const galleryDir = join(root, 'packages', 'node-red-dashboard-gallery');
const show = (path) => {
  const relativePath = relative(root, path);
  return relativePath.startsWith('..') ? path : relativePath;
};

function fail(message, code = 1) {
  console.error(`\x1b[31m[demo]\x1b[0m ${message}`);
  process.exit(code);
}

let settings;
try {
  settings = readSettings(root);
} catch (error) {
  if (error instanceof DemoSettingError) fail(error.message, 2);
  throw error;
}

const required = [
  join(root, 'packages', 'simulator', 'dist', 'index.js'),
  join(packageDir, 'dist', 'nodes', 'observation-server.js'),
  join(packageDir, 'node_modules', 'node-red', 'package.json'),
  join(galleryDir, 'dist', 'nodes', 'ui-observation-gallery.js'),
  join(galleryDir, 'resources', 'ui-observation-gallery.umd.js'),
  join(galleryDir, 'node_modules', '@flowfuse', 'node-red-dashboard', 'package.json'),
];
const missing = required.filter((path) => !existsSync(path));
if (missing.length > 0) {
  fail(
    `not built yet (${missing.map(show).join(', ')} missing): run \`npm start\`, which installs and builds first.`,
  );
}

try {
  await checkPortFree(settings.simulatorPort, settings.host, 'simulator', 'SIMULATOR_PORT');
  await checkPortFree(settings.nodeRedPort, settings.host, 'Node-RED', 'NODE_RED_PORT');
} catch (error) {
  if (error instanceof PortError) fail(error.message);
  throw error;
}

let sim;
try {
  sim = await startDemoSimulator(root, settings, (line) => console.log(`[demo] ${line}`));
} catch (error) {
  fail(error.message);
}

/** The Node-RED process running or starting now. */
let nodeRed;
/** Set once the demo is up: how to start Node-RED again after it stopped. */
let restartOptions;
let restartTimer;
let stopping = false;
const stopAll = onShutdown(async () => {
  stopping = true;
  clearTimeout(restartTimer);
  await nodeRed?.stop();
  await sim.stop();
}, 'Node-RED and the simulator');
exitWithParent(stopAll);

const log = (line) => console.log(`[demo] ${line}`);
const userDir = join(settings.dir, 'node-red');
const eventsLog = join(settings.dir, 'live-events.log');

/**
 * Node-RED in its process; once the demo is up, an exit it did not ask for (a stop or kill from
 * outside) starts it again after DEMO_NODE_RED_RESTART_SECONDS, on the same port and user dir.
 */
async function runNodeRed(options) {
  const started = startNodeRedProcess(options);
  nodeRed = started;
  const { url, version } = await started.ready;
  void started.exited.then(({ code, signal }) => {
    if (stopping) return;
    // Whatever its flows started and left behind in its process group goes with it.
    void started.stop();
    if (restartOptions === undefined) {
      stopAll(`Node-RED exited (code ${code}, signal ${signal})`, 1);
      return;
    }
    log(
      `Node-RED exited (code ${code}, signal ${signal}); the simulator keeps publishing. Starting Node-RED again in ${settings.nodeRedRestartSeconds} s: its flows then catch up what was published meanwhile (Ctrl-C stops the demo).`,
    );
    restartTimer = setTimeout(() => void restartNodeRed(), settings.nodeRedRestartSeconds * 1000);
  });
  return { url, version, pid: started.pid };
}

/** Node-RED again with its flows as saved (the user's edits to the demo's flows too). */
async function restartNodeRed() {
  try {
    const { url, pid } = await runNodeRed(restartOptions);
    log(`Node-RED is back at ${url} (pid ${pid}: kill -9 ${pid} to try again)`);
  } catch (error) {
    if (stopping) return;
    console.error(`\x1b[31m[demo]\x1b[0m ${error instanceof Error ? error.message : error}`);
    stopAll('Node-RED did not start again', 1);
  }
}

try {
  // Dashboard 2 is the gallery package's dev dependency; both load as installed packages would.
  const dashboardDir = dirname(
    createRequire(join(galleryDir, 'package.json')).resolve('@flowfuse/node-red-dashboard/package.json'),
  );
  const login = demoLogin(settings.host);
  const features = detectFeatures(packageDir);
  const alertFile = join(settings.dir, 'alerts', 'latest-person-alert.png');
  const options = {
    packageDir,
    extraPackageDirs: [dashboardDir, galleryDir],
    userDir,
    host: settings.host,
    port: settings.nodeRedPort,
    logLevel: settings.logLevel,
    login,
  };
  const { url, version, pid } = await runNodeRed({
    ...options,
    flows: [
      ...demoFlows({ sim, alertFile, eventsLog, taskWatchSeconds: settings.taskWatchSeconds, features }),
      ...dashboardFlows({ serverId: SERVER_ID }),
    ],
  });
  // Started again: the port it got (NODE_RED_PORT=0 too), its flows as saved.
  restartOptions = { ...options, port: Number(new URL(url).port), safeMode: false };
  printBanner({ features, alertFile, url, version, pid, login });
} catch (error) {
  if (stopping) {
    // Ctrl-C while starting: the shutdown under way ends the demo.
  } else {
    stopping = true;
    await nodeRed?.stop();
    await sim.stop();
    if (error instanceof PortError) fail(error.message);
    fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
  }
}

function printBanner({ features, alertFile, url, version, pid, login }) {
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
  const bold = (text) => `\x1b[1m${text}\x1b[0m`;
  const lines = [
    '',
    bold(`Observation Service demo is running (ready in ${seconds} s)`),
    '',
    `  Node-RED editor:    ${bold(url)}   (Node-RED ${version})`,
    `  dashboard:          ${bold(new URL(`api${DASHBOARD_PAGE_PATH}`, url).href)}   (live event gallery, Dashboard 2)`,
    login
      ? `  editor login:       ${login.username} / ${login.password}   (new every start)`
      : '  editor login:       none (the editor listens on this machine only)',
    `  simulator site:     ${sim.siteUrl}`,
    `  simulator API:      ${sim.apiUrl}`,
    `  simulator realtime: ${sim.wsUrl}`,
    `  service id:         ${sim.serviceId}`,
    `  demo credentials:   ${sim.credentials.email} / ${sim.credentials.password}   (stored as Node-RED credentials of "demo simulator")`,
    `  simulator control:  POST ${sim.siteUrl}/__control/<action>, GET …/__control/info for a token   (no authentication: demo only)`,
    `  live events:        ${settings.rate} per second, form both, seed ${settings.seed}`,
    '',
    '  Flows on the "Observation demo" tab:',
    `    1 live events of every task          → counted on the debug node, and a line each in ${show(eventsLog)} (handled when the flow is done)`,
    `    2 person-in-zone alert               → ${show(alertFile)} ${features.annotatedOperation ? '(annotated snapshot)' : '(plain snapshot: this package build has no annotated snapshot operation)'}`,
    '    3 hourly history report              → debug sidebar (also once at start)',
    `    4 task health watch, every ${settings.taskWatchSeconds} s       → debug sidebar ${features.taskWatchType ? `(${features.taskWatchType} node)` : '(tasks polled by the query node: this package build has no task watch node)'}`,
    '  On the "Dashboard" tab: live events with annotated snapshots → the event gallery on the dashboard page',
    `  Node-RED user dir:  ${show(userDir)}   (git-ignored; your own flows are kept across restarts, the demo's two tabs are refreshed each start)`,
    `  Node-RED settings:  ${show(userSettingsFile(userDir))}   (yours to change, read at each start of Node-RED; context in files)`,
    `  try a crash:        kill -9 ${pid}   (Node-RED's pid; kill ${pid} stops it): the simulator keeps publishing, the demo starts Node-RED again in ${settings.nodeRedRestartSeconds} s and flow 1 catches up what it missed`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ];
  console.log(lines.join('\n'));
}
