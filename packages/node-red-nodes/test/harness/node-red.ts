import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
export const packageRoot = resolve(here, '..', '..');
export const testNodesDir = resolve(here, '..', 'fixtures', 'test-nodes');

/**
 * Which Node-RED the suite runs on: `node-red` (5.x) or `node-red-4` (an npm alias of the last
 * 4.x). vitest's projects set it, so one `vitest run` covers both versions.
 */
export const nodeRedPackage = process.env.NODE_RED_PACKAGE ?? 'node-red';

interface RedRuntime {
  init(server: Server, settings: Record<string, unknown>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  httpAdmin: RequestListener;
  version(): string;
  nodes: {
    getNode(id: string): unknown;
    eachNode(callback: (node: { id: string; type: string }) => void): void;
  };
  settings: { userDir?: string; contextStorage?: unknown };
  /** The messaging hooks: whether a hook is added (`preDeliver.<label>`). */
  hooks: { has(hookId: string): boolean };
}

export interface TestUser {
  username: string;
  password: string;
  permissions: string | string[];
}

/** Users of the harness when admin auth is on: full access, read-only, and flows-only. */
export const users = {
  admin: { username: 'admin', password: 'admin-password', permissions: '*' },
  reader: { username: 'reader', password: 'reader-password', permissions: 'read' },
  flowsOnly: { username: 'flows', password: 'flows-password', permissions: ['flows.read'] },
} satisfies Record<string, TestUser>;

export interface HarnessOptions {
  /** Turn on Node-RED's admin auth with the users above (default: off). */
  adminAuth?: boolean;
  /** Node-RED `contextStorage` setting (default: memory). */
  contextStorage?: Record<string, unknown>;
  /**
   * File nodes resolve relative file names in the user dir (Node-RED's `fileWorkingDirectory`)
   * instead of the process's working directory, the package folder: a test's files stay out of the tree.
   */
  filesInUserDir?: boolean;
}

export interface HttpResult {
  status: number;
  text: string;
  json: unknown;
}

export type FlowNode = Record<string, unknown> & { id: string; type: string };

/** A warning or error the runtime logged, e.g. a node's `node.warn` (what the debug sidebar shows). */
export interface LoggedProblem {
  /** Node-RED's numeric level: 20 error, 30 warn, 40 info. */
  level: number;
  /** Id and type of the node that logged it, if a node did. */
  id?: string;
  type?: string;
  msg: unknown;
}

type Listener = (sinkId: string, msg: Record<string, unknown>) => void;
interface TestBus {
  sources: Map<string, { receive(msg: Record<string, unknown>): void }>;
  listeners: Set<Listener>;
}

function bus(): TestBus {
  const key = Symbol.for('observation-test-bus');
  const global = globalThis as unknown as Record<symbol, TestBus | undefined>;
  global[key] ??= { sources: new Map(), listeners: new Set() };
  return global[key];
}

/** A real Node-RED runtime (runtime + editor API) on an ephemeral port with our package loaded. */
export class NodeRedHarness {
  readonly received = new Map<string, Record<string, unknown>[]>();
  readonly #listener: Listener = (sinkId, msg) => {
    const list = this.received.get(sinkId) ?? [];
    list.push(msg);
    this.received.set(sinkId, list);
  };
  #token: string | undefined;

  private constructor(
    readonly RED: RedRuntime,
    readonly server: Server,
    readonly baseUrl: string,
    readonly userDir: string,
    readonly adminAuth: boolean,
    /** Warnings and errors logged by the runtime and its nodes since the start. */
    readonly problems: LoggedProblem[],
    /** Lines logged at info level by the nodes (not the runtime) since the start: `node.log`. */
    readonly notes: LoggedProblem[],
  ) {
    bus().listeners.add(this.#listener);
  }

  static async start(options: HarnessOptions = {}): Promise<NodeRedHarness> {
    if (!existsSync(join(packageRoot, 'dist', 'nodes', 'observation-server.js'))) {
      throw new Error('dist/ is missing: run `pnpm build` in packages/node-red-nodes first');
    }
    const RED = require(nodeRedPackage) as RedRuntime;
    const userDir = mkdtempSync(join(tmpdir(), 'observation-node-red-'));
    writeEditorUserSettings(userDir, ['_', ...Object.values(users).map((user) => user.username)]);
    const server = createServer();
    const problems: LoggedProblem[] = [];
    const notes: LoggedProblem[] = [];
    const settings: Record<string, unknown> = {
      userDir,
      flowFile: 'flows.json',
      credentialSecret: 'test-credential-secret',
      httpAdminRoot: '/',
      httpNodeRoot: false,
      nodesDir: [packageRoot, testNodesDir],
      coreNodesDir: coreNodesOnly(userDir),
      logging: {
        console: { level: process.env.NODE_RED_LOG_LEVEL ?? 'fatal', metrics: false, audit: false },
        capture: {
          level: 'warn',
          metrics: false,
          audit: false,
          handler: () => (entry: LoggedProblem) => void problems.push(entry),
        },
        notes: {
          level: 'info',
          metrics: false,
          audit: false,
          handler: () => (entry: LoggedProblem) => {
            if (entry.level === 40 && entry.id !== undefined) notes.push(entry);
          },
        },
      },
      telemetry: { enabled: false },
      runtimeState: { enabled: true },
      externalModules: { autoInstall: false, palette: { allowInstall: false } },
      editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
      contextStorage: options.contextStorage ?? { default: { module: 'memory' } },
      ...(options.filesInUserDir ? { fileWorkingDirectory: userDir } : {}),
    };
    if (options.adminAuth) {
      const all: TestUser[] = Object.values(users);
      settings.adminAuth = {
        type: 'credentials',
        users: async (username: string) => {
          const user = all.find((candidate) => candidate.username === username);
          return user ? { username: user.username, permissions: user.permissions } : null;
        },
        authenticate: async (username: string, password: string) => {
          const user = all.find(
            (candidate) => candidate.username === username && candidate.password === password,
          );
          return user ? { username: user.username, permissions: user.permissions } : null;
        },
      };
    }
    RED.init(server, settings);
    server.on('request', RED.httpAdmin);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    await RED.start();
    const { port } = server.address() as AddressInfo;
    const harness = new NodeRedHarness(
      RED,
      server,
      `http://127.0.0.1:${port}`,
      userDir,
      options.adminAuth === true,
      problems,
      notes,
    );
    if (options.adminAuth) harness.#token = await harness.login(users.admin);
    return harness;
  }

  get version(): string {
    return this.RED.version();
  }

  /** Logs in through the editor API and returns the bearer token. */
  async login(user: TestUser): Promise<string> {
    const scope = Array.isArray(user.permissions) ? user.permissions.join(' ') : user.permissions;
    const result = await this.request('POST', '/auth/token', {
      anonymous: true,
      body: {
        client_id: 'node-red-admin',
        grant_type: 'password',
        scope,
        username: user.username,
        password: user.password,
      },
    });
    const token = (result.json as { access_token?: string } | undefined)?.access_token;
    if (!token) throw new Error(`login as ${user.username} failed: ${result.status} ${result.text}`);
    return token;
  }

  /** An HTTP call to the editor API; the admin token is used unless `token` or `anonymous` says otherwise. */
  async request(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; anonymous?: boolean; headers?: Record<string, string> } = {},
  ): Promise<HttpResult> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.anonymous ? undefined : (options.token ?? this.#token);
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json };
  }

  /** Deploys flows through the editor API, as the Deploy button does. */
  async deploy(flows: FlowNode[], type: 'full' | 'nodes' | 'flows' = 'full'): Promise<void> {
    const result = await this.request('POST', '/flows', {
      body: { flows },
      headers: { 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': type },
    });
    if (result.status !== 200) throw new Error(`deploy failed: ${result.status} ${result.text}`);
    // The editor API answers before the runtime has started every node: wait for them.
    await this.nodesStarted(flows);
  }

  async nodesStarted(flows: FlowNode[], timeoutMs = 10_000): Promise<void> {
    const ids = flows.filter((node) => node.type !== 'tab' && node.d !== true).map((node) => node.id);
    const started = Date.now();
    while (!ids.every((id) => this.node(id))) {
      if (Date.now() - started > timeoutMs) throw new Error('deployed nodes did not start in time');
      await new Promise((wake) => setTimeout(wake, 10));
    }
  }

  /** Stops or starts the flows (runtime state API), closing or re-creating every node. */
  async setFlowState(state: 'stop' | 'start'): Promise<void> {
    const result = await this.request('POST', '/flows/state', { body: { state } });
    if (result.status !== 200) throw new Error(`flow state ${state} failed: ${result.status} ${result.text}`);
  }

  /** The runtime's admin express app: the one nodes register their `RED.httpAdmin` routes on. */
  runtimeAdminApp(): unknown {
    const fromNodeRed = createRequire(require.resolve(`${nodeRedPackage}/package.json`));
    return (fromNodeRed('@node-red/runtime') as { httpAdmin: unknown }).httpAdmin;
  }

  /** A deployed node instance, straight from the runtime. */
  node<T = unknown>(id: string): T | undefined {
    return (this.RED.nodes.getNode(id) as T | null) ?? undefined;
  }

  /** Sends `msg` out of the test-source node with this id. */
  inject(sourceId: string, msg: Record<string, unknown>): void {
    const source = bus().sources.get(sourceId);
    if (!source) throw new Error(`no deployed test-source ${sourceId}`);
    source.receive(msg);
  }

  messages(sinkId: string): Record<string, unknown>[] {
    return this.received.get(sinkId) ?? [];
  }

  clear(): void {
    this.received.clear();
  }

  /** Waits until the sink has received messages satisfying `done`, or fails after `timeoutMs`. */
  async waitFor(
    sinkId: string,
    done: (messages: Record<string, unknown>[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<Record<string, unknown>[]> {
    const started = Date.now();
    while (!done(this.messages(sinkId))) {
      if (Date.now() - started > timeoutMs) {
        throw new Error(
          `timed out waiting on sink ${sinkId}; got ${JSON.stringify(this.messages(sinkId).slice(-5), null, 1).slice(0, 2000)}`,
        );
      }
      await new Promise((wake) => setTimeout(wake, 20));
    }
    return this.messages(sinkId);
  }

  async stop(): Promise<void> {
    bus().listeners.delete(this.#listener);
    await this.RED.stop();
    await new Promise<void>((done) => {
      this.server.close(() => done());
      this.server.closeAllConnections();
    });
    // Node-RED saves runtime settings (flow state) through a temp file + rename that can still be
    // in flight after RED.stop() resolves; removing the folder under it is an unhandled ENOENT.
    const started = Date.now();
    let quiet = 0;
    while (quiet < 3 && Date.now() - started < 3_000) {
      const writing = readdirSync(this.userDir).some((name) => name.endsWith('.$$$'));
      quiet = writing ? 0 : quiet + 1;
      await new Promise((wake) => setTimeout(wake, 50));
    }
    rmSync(this.userDir, { recursive: true, force: true });
  }
}

/**
 * Node-RED loads every node module in the node_modules folders above its core nodes. In this
 * workspace that is pnpm's hoisting folder, which holds Dashboard 2 and our gallery too: every
 * start loaded them (a quarter of a red.js start's CPU, 2.0 against 1.45 s on Node-RED 5) and the
 * palette listed them before any install. Node-RED's core nodes through a link in the user dir
 * (its `coreNodesDir` setting) leave the user dir's node_modules and `nodesDir`: Node-RED with our
 * package installed, as on a user's machine. Dashboard 2 beside it is the gallery package's test.
 * Returns the path for `coreNodesDir`.
 */
export function coreNodesOnly(userDir: string): string {
  const link = join(userDir, '.core-nodes', 'node_modules', '@node-red', 'nodes');
  if (!existsSync(link)) {
    const fromNodeRed = createRequire(require.resolve(`${nodeRedPackage}/package.json`));
    mkdirSync(dirname(link), { recursive: true });
    // As red.js finds them.
    symlinkSync(dirname(fromNodeRed.resolve('@node-red/nodes')), link);
  }
  return link;
}

/**
 * Turns the editor's info-sidebar tips off for every user. Node-RED's user settings start the tips
 * timer (1 s) before the info sidebar has created the box it writes into; on a loaded machine the
 * sidebar comes later and the editor throws "Cannot read properties of undefined (reading 'html')"
 * from its own `setTip` (red.js, `tipBox.html(tip)`). CI met it twice; the tips test nothing of ours.
 */
export function writeEditorUserSettings(userDir: string, usernames: string[]): void {
  const settings = { editor: { view: { 'view-show-tips': false } } };
  const perUser = Object.fromEntries(usernames.map((username) => [username, settings]));
  writeFileSync(join(userDir, '.config.users.json'), JSON.stringify(perUser));
}
