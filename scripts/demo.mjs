#!/usr/bin/env node
// `npm start`: the simulator (built dist, both forms, seeded, live events) and an embedded
// Node-RED with @observation-service/node-red-observation loaded and the example flows deployed
// against it, plus Dashboard 2 with the event gallery widget on a second tab ("Dashboard").
// scripts/run.mjs installs and builds first, then runs this with Node 24.
// Everything runs in this one process, so stopping it (Ctrl-C, SIGTERM, SIGHUP, or the parent
// going away) leaves nothing behind.
//
// Environment: NODE_RED_PORT (1880), SIMULATOR_PORT (8080), 0 = any free port; DEMO_HOST
// (127.0.0.1); DEMO_RATE (live events/s, 1); DEMO_SEED (1); DEMO_TASK_WATCH_SECONDS (10);
// DEMO_DIR (.demo); DEMO_LOG_LEVEL (Node-RED's console log level, warn).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DASHBOARD_PAGE_PATH, dashboardFlows } from './demo/dashboard-flows.mjs';
import { startNodeRed } from './demo/node-red.mjs';
import { demoFlows, detectFeatures, isDemoNode, SERVER_ID } from './demo/node-red-flows.mjs';
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

let nodeRed;
const stopAll = onShutdown(async () => {
  await nodeRed?.stop();
  await sim.stop();
}, 'Node-RED and the simulator');
exitWithParent(stopAll);

try {
  // Dashboard 2 is the gallery package's dev dependency; both load as installed packages would.
  const dashboardDir = dirname(
    createRequire(join(galleryDir, 'package.json')).resolve('@flowfuse/node-red-dashboard/package.json'),
  );
  nodeRed = await startNodeRed({
    packageDir,
    extraPackageDirs: [dashboardDir, galleryDir],
    userDir: join(settings.dir, 'node-red'),
    host: settings.host,
    port: settings.nodeRedPort,
    logLevel: settings.logLevel,
  });
  const features = detectFeatures(packageDir);
  const alertFile = join(settings.dir, 'alerts', 'latest-person-alert.png');
  await nodeRed.deploy(
    [
      ...demoFlows({ sim, alertFile, taskWatchSeconds: settings.taskWatchSeconds, features }),
      ...dashboardFlows({ serverId: SERVER_ID }),
    ],
    isDemoNode,
  );
  printBanner({ features, alertFile });
} catch (error) {
  await sim.stop();
  await nodeRed?.stop().catch(() => undefined);
  if (error instanceof PortError) fail(error.message);
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
}

function printBanner({ features, alertFile }) {
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
  const bold = (text) => `\x1b[1m${text}\x1b[0m`;
  const lines = [
    '',
    bold(`Observation Service demo is running (ready in ${seconds} s)`),
    '',
    `  Node-RED editor:    ${bold(nodeRed.url)}   (Node-RED ${nodeRed.version})`,
    `  dashboard:          ${bold(new URL(`api${DASHBOARD_PAGE_PATH}`, nodeRed.url).href)}   (live event gallery, Dashboard 2)`,
    nodeRed.login
      ? `  editor login:       ${nodeRed.login.username} / ${nodeRed.login.password}   (new every start)`
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
    '    1 live events of every task          → counted on the debug node (tick its debug window to see each)',
    `    2 person-in-zone alert               → ${show(alertFile)} ${features.annotatedOperation ? '(annotated snapshot)' : '(plain snapshot: this package build has no annotated snapshot operation)'}`,
    '    3 hourly history report              → debug sidebar (also once at start)',
    `    4 task health watch, every ${settings.taskWatchSeconds} s       → debug sidebar ${features.taskWatchType ? `(${features.taskWatchType} node)` : '(tasks polled by the query node: this package build has no task watch node)'}`,
    '  On the "Dashboard" tab: live events with annotated snapshots → the event gallery on the dashboard page',
    `  Node-RED user dir:  ${show(join(settings.dir, 'node-red'))}   (git-ignored; your own flows are kept across restarts, the demo's two tabs are refreshed each start)`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ];
  console.log(lines.join('\n'));
}
