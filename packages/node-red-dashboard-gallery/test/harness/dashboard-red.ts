import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
export const packageRoot = resolve(here, '..', '..');

/** `node-red` (5.x) or `node-red-4` (an npm alias of the last 4.x), set by vitest's projects. */
export const nodeRedPackage = process.env.NODE_RED_PACKAGE ?? 'node-red';

type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

interface RedRuntime {
  init(server: Server, settings: Record<string, unknown>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  httpAdmin: Handler;
  httpNode: Handler;
  version(): string;
  nodes: { getNode(id: string): unknown };
}

export type FlowNode = Record<string, unknown> & { id: string; type: string };

export interface NodeStatus {
  fill?: string;
  shape?: string;
  text?: string;
}

interface RuntimeEvents {
  on(event: 'node-status', listener: (update: { id: string; status: NodeStatus }) => void): void;
}

/** A Node-RED log entry as its logging handlers receive it. */
export interface LogEntry {
  level: number;
  type?: string;
  id?: string;
  msg: unknown;
}
/** Node-RED's level number for `error` (fatal is 10, warn 30). */
export const ERROR_LEVEL = 20;

/** A logged message's text; Node-RED hands errors to log handlers encoded (`{"__enc__":true,…}`). */
function messageOf(logged: unknown): string {
  if (logged instanceof Error) return logged.message;
  const text = String(logged);
  try {
    const decoded = JSON.parse(text) as { __enc__?: boolean; data?: { message?: string } };
    if (decoded.__enc__ && typeof decoded.data?.message === 'string') return decoded.data.message;
  } catch {
    // Plain text.
  }
  return text;
}

/** Package folders Node-RED loads, as `nodesDir` entries (each a package with a `node-red` section). */
function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/**
 * A real Node-RED (runtime, editor API and the flows' HTTP root) on an ephemeral port with
 * Dashboard 2, the Node-RED package's nodes and this widget loaded. The Node-RED package's own
 * harness turns the HTTP root off, which Dashboard 2 needs, hence this small one.
 */
export class DashboardRed {
  private constructor(
    readonly RED: RedRuntime,
    readonly server: Server,
    readonly baseUrl: string,
    readonly userDir: string,
    /** Everything the runtime logged at warn or worse (node.error and node.warn included). */
    readonly logs: LogEntry[],
    /** The latest status of every node that set one. */
    readonly statuses: Map<string, NodeStatus>,
  ) {}

  static async start(): Promise<DashboardRed> {
    const logs: LogEntry[] = [];
    if (!existsSync(join(packageRoot, 'resources', 'ui-observation-gallery.umd.js'))) {
      throw new Error('resources/ is missing: run `pnpm build` in packages/node-red-dashboard-gallery first');
    }
    const RED = require(nodeRedPackage) as RedRuntime;
    // Node statuses as the editor gets them: the runtime's `node-status` events.
    const statuses = new Map<string, NodeStatus>();
    const fromNodeRed = createRequire(require.resolve(`${nodeRedPackage}/package.json`));
    const { events } = fromNodeRed('@node-red/util') as { events: RuntimeEvents };
    events.on('node-status', (update: { id: string; status: NodeStatus }) =>
      statuses.set(update.id, update.status),
    );
    const userDir = mkdtempSync(join(tmpdir(), 'observation-gallery-red-'));
    // The editor's info tips start a 1 s timer that can fire before the sidebar made their box, and
    // Node-RED then throws from its own `setTip` on a loaded machine: the editor tests keep them off.
    writeFileSync(
      join(userDir, '.config.users.json'),
      JSON.stringify({ _: { editor: { view: { 'view-show-tips': false } } } }),
    );
    const server = createServer();
    RED.init(server, {
      userDir,
      flowFile: 'flows.json',
      credentialSecret: 'test-credential-secret',
      httpAdminRoot: '/',
      httpNodeRoot: '/',
      nodesDir: [
        packageDir('@observation-service/node-red-observation'),
        packageDir('@flowfuse/node-red-dashboard'),
        packageRoot,
      ],
      logging: {
        console: { level: process.env.NODE_RED_LOG_LEVEL ?? 'fatal', metrics: false, audit: false },
        capture: {
          level: 'warn',
          metrics: false,
          audit: false,
          handler: () => (entry: LogEntry) => logs.push(entry),
        },
      },
      telemetry: { enabled: false },
      externalModules: { autoInstall: false, palette: { allowInstall: false } },
      editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
      contextStorage: { default: { module: 'memory' } },
    });
    // Both roots are `/`: the editor API first, then the flows' routes (dashboard, gallery media).
    server.on('request', (req, res) =>
      RED.httpAdmin(req, res, () =>
        RED.httpNode(req, res, () => {
          res.statusCode = 404;
          res.end();
        }),
      ),
    );
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    await RED.start();
    const { port } = server.address() as AddressInfo;
    return new DashboardRed(RED, server, `http://127.0.0.1:${port}`, userDir, logs, statuses);
  }

  get version(): string {
    return this.RED.version();
  }

  /** Deploys flows through the editor API, as the Deploy button does, and waits for the nodes. */
  async deploy(flows: FlowNode[]): Promise<void> {
    // Statuses of the previous deployment say nothing about the new one.
    this.statuses.clear();
    const response = await fetch(`${this.baseUrl}/flows`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'Node-RED-API-Version': 'v2',
        'Node-RED-Deployment-Type': 'full',
      },
      body: JSON.stringify({ flows }),
    });
    if (response.status !== 200)
      throw new Error(`deploy failed: ${response.status} ${await response.text()}`);
    const ids = flows.filter((node) => node.type !== 'tab').map((node) => node.id);
    const started = Date.now();
    while (!ids.every((id) => this.node(id))) {
      if (Date.now() - started > 10_000) throw new Error('deployed nodes did not start in time');
      await new Promise((wake) => setTimeout(wake, 10));
    }
  }

  /**
   * Waits until the events node shows its subscription open (green): only then do live events
   * reach it. An open socket on the simulator is not enough, the client may not be listening yet.
   */
  async connected(eventsNodeId: string, timeoutMs = 15_000): Promise<void> {
    const started = Date.now();
    while (this.statuses.get(eventsNodeId)?.fill !== 'green') {
      if (Date.now() - started > timeoutMs) {
        throw new Error(`${eventsNodeId} not connected: ${JSON.stringify(this.statuses.get(eventsNodeId))}`);
      }
      await new Promise((wake) => setTimeout(wake, 20));
    }
  }

  /** Presses an inject node's button through the editor API. */
  async inject(id: string): Promise<void> {
    const response = await fetch(`${this.baseUrl}/inject/${id}`, { method: 'POST' });
    if (response.status !== 200) throw new Error(`inject ${id} failed: ${response.status}`);
  }

  /** Text of the errors a node logged (node.error). */
  errors(nodeId: string): string[] {
    return this.logs
      .filter((entry) => entry.level === ERROR_LEVEL && entry.id === nodeId)
      .map((entry) => messageOf(entry.msg));
  }

  node<T = unknown>(id: string): T | undefined {
    return (this.RED.nodes.getNode(id) as T | null) ?? undefined;
  }

  async stop(): Promise<void> {
    await this.RED.stop();
    await new Promise<void>((done) => {
      this.server.close(() => done());
      this.server.closeAllConnections();
    });
    // Node-RED may still be renaming a settings temp file after stop(): wait for quiet first.
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
