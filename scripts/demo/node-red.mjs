// Node-RED of the demo (the workspace's own node-red dev dependency, RED.init on our HTTP server),
// run inside the process node-red-child.mjs makes for it, with @observation-service/node-red-observation
// loaded as a real module: settings.nodesDir names the package folder, whose package.json
// `node-red` section Node-RED reads exactly as for an installed package (nodes, icons, locales,
// examples under Import → Examples). Further package folders (Dashboard 2 and the event gallery
// widget) load the same way. The user dir's settings.js is the user's: made on the first start,
// read at every start, with the demo's own settings on top of it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { PortError, portMessage } from './ports.mjs';
import { isLoopback } from './settings.mjs';

/**
 * @param {{ packageDir: string, extraPackageDirs?: string[], userDir: string, host: string, port: number,
 *   logLevel: string, login?: { username: string, password: string }, safeMode?: boolean }} options
 *   `login`: the editor's login (demoLogin), none on loopback; `safeMode` (default true): the saved
 *   flows wait for the demo's deploy instead of starting as saved
 * @returns {Promise<{ url: string, login?: { username: string, password: string },
 *   version: string, deploy(ownFlows: object[], isOwn: (node: object) => boolean): Promise<void>, stop(): Promise<void> }>}
 */
export async function startNodeRed({
  packageDir,
  extraPackageDirs = [],
  userDir,
  host,
  port,
  logLevel,
  login,
  safeMode = true,
}) {
  const fromPackage = createRequire(join(packageDir, 'package.json'));
  const RED = fromPackage('node-red');
  const express = createRequire(fromPackage.resolve('node-red'))('express');
  mkdirSync(userDir, { recursive: true });

  const settings = {
    // No update-check prompt, no tour over the editor on first open, no projects wizard.
    telemetry: { enabled: false },
    diagnostics: { enabled: false },
    editorTheme: {
      tours: false,
      page: { title: 'Observation Service demo · Node-RED' },
      header: { title: 'Node-RED · Observation Service demo' },
    },
    functionExternalModules: false,
    // The examples' file nodes write relative paths under the user dir, not the directory the
    // demo was started from (the repository root).
    fileWorkingDirectory: userDir,
    // What the user's settings.js says, over the demo's choices above and under its own below.
    ...userSettings(userDir),
    userDir,
    flowFile: 'flows.json',
    credentialSecret: credentialSecret(userDir),
    nodesDir: [packageDir, ...extraPackageDirs],
    httpAdminRoot: '/',
    httpNodeRoot: '/api',
    uiHost: host,
    logging: { console: { level: logLevel, metrics: false, audit: false, handler: demoLogHandler } },
    // At `npm start` the flows saved by the last run are not started on their own: the demo
    // first refreshes its own flows among them (deploy below), which starts everything, the
    // user's flows too. Started as saved, they would still point at the last run's simulator for
    // a moment. Started again after a stop or a kill, Node-RED runs its flows as saved.
    safeMode,
    adminAuth: login ? adminAuthFor(login) : undefined,
  };

  const app = express();
  const server = createServer(app);
  RED.init(server, settings);
  app.use(settings.httpNodeRoot, RED.httpNode);
  app.use(settings.httpAdminRoot, RED.httpAdmin);

  await new Promise((resolve, reject) => {
    server.once('error', (error) =>
      reject(new PortError(portMessage(error, 'Node-RED', port, 'NODE_RED_PORT'))),
    );
    server.listen(port, host, resolve);
  });
  const actualPort = server.address().port;
  // The address to print and to call: a wildcard address is reached through loopback here.
  const callHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${callHost.includes(':') ? `[${callHost}]` : callHost}:${actualPort}/`;
  await RED.start();

  async function token() {
    if (!login) return undefined;
    const response = await fetch(new URL('auth/token', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: 'node-red-admin',
        grant_type: 'password',
        scope: '*',
        username: login.username,
        password: login.password,
      }),
    });
    if (!response.ok) throw new Error(`Node-RED demo login failed: HTTP ${response.status}`);
    return (await response.json()).access_token;
  }

  /**
   * Deploys through the admin API, as the editor's Deploy button does (credentials included):
   * the demo's own flows (`isOwn`) replace their previous version, every other node the user
   * made or imported is kept as it is, with its credentials (a node sent without them keeps the
   * ones Node-RED has).
   */
  async function deploy(ownFlows, isOwn) {
    const bearer = await token();
    const current = await fetch(new URL('flows', url), {
      headers: { 'Node-RED-API-Version': 'v2', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    });
    if (!current.ok) throw new Error(`reading the saved flows failed: HTTP ${current.status}`);
    const kept = (await current.json()).flows.filter((node) => !isOwn(node));
    const flows = [...ownFlows, ...kept];
    const response = await fetch(new URL('flows', url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'Node-RED-API-Version': 'v2',
        'Node-RED-Deployment-Type': 'full',
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify({ flows }),
    });
    if (!response.ok) {
      throw new Error(`deploying the demo flows failed: HTTP ${response.status} ${await response.text()}`);
    }
    // The API answers before the runtime has started every node.
    const ids = flows.filter((node) => node.type !== 'tab' && node.type !== 'group').map((node) => node.id);
    const started = Date.now();
    while (!ids.every((id) => RED.nodes.getNode(id))) {
      if (Date.now() - started > 15_000) throw new Error('the demo flows did not start within 15 s');
      await new Promise((wake) => setTimeout(wake, 50));
    }
  }

  /**
   * The editor's layout for a first visit, stored as this user dir's editor settings (as the
   * editor itself saves them): a wide debug sidebar under a short info panel, no tips. A layout
   * the user has changed since is kept.
   */
  async function seedEditorLayout() {
    const bearer = await token();
    const headers = {
      'content-type': 'application/json',
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    };
    const current = await fetch(new URL('settings/user', url), { headers });
    const existing = current.ok ? await current.json() : {};
    if (existing.editor?.sidebar?.state) return;
    const editor = {
      ...existing.editor,
      view: { ...existing.editor?.view, 'view-show-tips': false },
      sidebar: { state: sidebarState },
    };
    await fetch(new URL('settings/user', url), {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...existing, editor }),
    });
  }

  let stopping;
  function stop() {
    stopping ??= (async () => {
      await RED.stop();
      await new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    })();
    return stopping;
  }

  await seedEditorLayout();
  return { url, login, version: RED.version(), deploy, stop };
}

/**
 * The editor can run any code on this machine (function and exec nodes): without a login it is
 * only offered on this machine's loopback address; on any other address a demo login is made
 * for each `npm start` (kept while the demo starts Node-RED again) and printed.
 */
export function demoLogin(host) {
  return isLoopback(host) ? undefined : { username: 'demo', password: randomBytes(9).toString('base64url') };
}

/** The user dir's settings.js, which the user may change; the demo writes it when there is none. */
export function userSettingsFile(userDir) {
  return join(userDir, 'settings.js');
}

/**
 * Written once, then the user's: an edit counts from Node-RED's next start. Localfilesystem
 * context written once a second instead of Node-RED's 30 s: a kill then repeats about the last
 * 2 s of what the events nodes handled, not the last 30 s.
 */
const settingsTemplate = `// Node-RED settings of the \`npm start\` demo: yours to change. The demo reads this file each time
// it starts Node-RED (at \`npm start\`, and when it starts Node-RED again after you stopped or
// killed it), so a change counts from the next start. Delete the file to get this one back.
//
// The demo sets these itself, whatever this file says: userDir, flowFile, credentialSecret,
// nodesDir, httpAdminRoot, httpNodeRoot, uiHost, uiPort, logging, safeMode and adminAuth
// (DEMO_DIR, DEMO_HOST, NODE_RED_PORT and DEMO_LOG_LEVEL choose them). Any other setting of
// Node-RED's settings.js can go here.
module.exports = {
  // Flow, global and node context in files (the context folder beside this file), so it
  // survives a stop and a kill of Node-RED. The observation events nodes keep their position
  // there. Written once a second: a kill (kill -9) makes them send again at most about the last
  // 2 seconds of events. Node-RED's own default, flushInterval 30, writes less often and repeats
  // up to 30 seconds. Without contextStorage, context is in memory only, and the events nodes
  // keep their position in files of their own (the observation-state folder).
  contextStorage: {
    default: { module: 'localfilesystem', config: { flushInterval: 1 } },
  },
};
`;

/** What settings.js exports, written first when missing. */
function userSettings(userDir) {
  const file = userSettingsFile(userDir);
  // Read as CommonJS, as Node-RED reads it: the package.json Node-RED makes in its user dir on
  // its first start, made first (a demo folder inside the repository would otherwise be under
  // the repository's "type": "module").
  const packageFile = join(userDir, 'package.json');
  if (!existsSync(packageFile)) {
    const project = {
      name: 'node-red-project',
      description: 'A Node-RED Project',
      version: '0.0.1',
      private: true,
    };
    writeFileSync(packageFile, `${JSON.stringify(project, null, 4)}\n`);
  }
  if (!existsSync(file)) writeFileSync(file, settingsTemplate);
  try {
    const exported = createRequire(file)(file);
    return typeof exported === 'object' && exported !== null ? exported : {};
  } catch (error) {
    throw new Error(
      `${relative(process.cwd(), file) || file}: ${error instanceof Error ? error.message : error}`,
    );
  }
}

// Node-RED 5's sidebar layout (RED.sidebar, layout version 4) with the debug tab given room.
const sidebarState = {
  v: 4,
  tabs: ['palette', 'explorer', 'info', 'debug', 'help', 'config', 'context'],
  primary: {
    width: 440,
    top: { tabs: ['info', 'help', 'config', 'context'], active: 'info', height: 170, hidden: false },
    bottom: { tabs: ['debug'], active: 'debug', hidden: false },
  },
  secondary: {
    width: 210,
    top: { tabs: ['explorer'], active: 'explorer', height: 160, hidden: false },
    bottom: { tabs: ['palette'], active: 'palette', hidden: false },
  },
};

// Startup notices that are expected in the demo and would only bury its banner.
const expectedNotices = [/^Projects disabled/, /^Encrypted credentials not found/];
const levelNames = { 10: 'fatal', 20: 'error', 30: 'warn', 40: 'info', 50: 'debug', 60: 'trace' };

/** Node-RED's console logger, minus the expected notices, prefixed so its lines stand apart. */
function demoLogHandler() {
  return (entry) => {
    const text = entry.msg instanceof Error ? entry.msg.message : String(entry.msg);
    if (expectedNotices.some((notice) => notice.test(text))) return;
    const level = levelNames[entry.level] ?? entry.level;
    const source = entry.type ? `[${entry.type}:${entry.name || entry.id}] ` : '';
    console.log(`\x1b[33m[node-red]\x1b[0m [${level}] ${source}${text}`);
  };
}

/**
 * The key of flows_cred.json: random, made on the first start and kept (owner-only) in the user
 * dir, so the credentials file stays readable across starts. Set explicitly so Node-RED does not
 * print its warning about a system-generated key.
 */
function credentialSecret(userDir) {
  const file = join(userDir, '.credential-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

function adminAuthFor(login) {
  const user = { username: login.username, permissions: '*' };
  return {
    type: 'credentials',
    users: async (username) => (username === login.username ? user : null),
    authenticate: async (username, password) =>
      username === login.username && password === login.password ? user : null,
  };
}
