/**
 * An embedded Node-RED (the runtime and its editor API, as `node-red` runs it) for the Node-RED
 * figures, in a process of its own. It loads our package from its built dist and the bench's
 * counting node, and deploys one of two flows through the editor API as the Deploy button does:
 *   observation: `observation events` (all tasks) → bench-counter
 *   websocket:   built-in `websocket in` (client to the same realtime URL) → `json` → bench-counter
 *   websocket-hooked: the websocket flow, and on another tab an events node "handled when the
 *     flow is done" on a second simulator, wired to a delay node that holds what it gets for an
 *     hour: our package loaded and, once that simulator sent the node an event, its messaging
 *     hooks in the runtime (they are there only while an event of it is out) for the whole round
 * or none. Driven over IPC: `{ id, action, args }` → `{ id, ok, result | error }`. With
 * `--without-package` the runtime never loads our package (only the websocket flow can run).
 *
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { LocalTally } from '../lib/burst.ts';
import { now, sleep } from '../lib/clock.ts';
import { serveIpc } from '../lib/ipc-child.ts';
import { answerTally } from '../lib/remote-tally.ts';
import type { SimulatorAddresses } from '../lib/simulator-process.ts';

interface RedRuntime {
  init(server: unknown, settings: Record<string, unknown>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  httpAdmin: (req: unknown, res: unknown) => void;
  nodes: { getNode(id: string): unknown };
  hooks: {
    has(hookId: string): boolean;
    add(hookId: string, callback: unknown): void;
    remove(hookId: string): void;
  };
}

export type FlowVariant =
  | 'observation'
  | 'observation-annotated'
  | 'observation-done'
  | 'websocket'
  | 'websocket-hooked'
  | 'none';

const require = createRequire(import.meta.url);
const RED = require('node-red') as RedRuntime;
const ourPackage = realpathSync(
  dirname(require.resolve('@observation-service/node-red-observation/package.json')),
);
const counterDir = fileURLToPath(new URL('../node-red-counter', import.meta.url));

const TALLY = Symbol.for('observation-bench-tally');
function tally(): LocalTally {
  const global = globalThis as unknown as Record<symbol, LocalTally | undefined>;
  global[TALLY] ??= { received: 0, lastAt: 0, recordTimes: false, ids: [], times: [] };
  return global[TALLY];
}

const userDir = mkdtempSync(join(tmpdir(), 'observation-bench-node-red-'));
const server = createServer();
RED.init(server, {
  userDir,
  flowFile: 'flows.json',
  credentialSecret: 'bench-credential-secret',
  httpAdminRoot: '/',
  httpNodeRoot: false,
  nodesDir: process.argv.includes('--without-package') ? [counterDir] : [ourPackage, counterDir],
  logging: { console: { level: 'fatal', metrics: false, audit: false } },
  telemetry: { enabled: false },
  externalModules: { autoInstall: false, palette: { allowInstall: false } },
  editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
  contextStorage: { default: { module: 'memory' } },
});
server.on('request', RED.httpAdmin);

/**
 * Our package's messaging hooks, by the label flow-done.ts gives them. P2-hooks asserts they are in
 * the runtime for each measured burst of the hooked runtime; a label renamed there fails that
 * check rather than letting the row measure a runtime without them.
 */
const OUR_HOOKS = ['preDeliver.observationEventsDone', 'onComplete.observationEventsDone'];
/** How often our hooks were added and removed: a removal between two checks means a gap. */
const hookChanges = { added: 0, removed: 0 };
{
  // Counted at add and remove, never per message: the burst's messages pay nothing for it.
  const { add, remove } = RED.hooks;
  RED.hooks.add = (hookId, callback) => {
    if (OUR_HOOKS.includes(hookId)) hookChanges.added++;
    add(hookId, callback);
  };
  RED.hooks.remove = (hookId) => {
    if (OUR_HOOKS.includes(hookId)) hookChanges.removed++;
    remove(hookId);
  };
}
/** Whether both of our hooks are in the runtime now, and how often they were added and removed. */
function ourHooks(): { present: boolean; added: number; removed: number } {
  return { present: OUR_HOOKS.every((hookId) => RED.hooks.has(hookId)), ...hookChanges };
}
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
await RED.start();
const adminUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

let deployment = 0;

/** The flow of a variant; node ids are new on every deploy, so no cursor from an earlier one is found. */
function flowFor(
  variant: FlowVariant,
  sim: SimulatorAddresses,
  idleSim?: SimulatorAddresses,
): Record<string, unknown>[] {
  if (variant === 'none') return [];
  deployment++;
  const id = (name: string) => `${name}-${deployment}`;
  const tab = { id: id('tab'), type: 'tab', label: `bench ${variant}` };
  const counter = { id: id('counter'), type: 'bench-counter', z: tab.id, wires: [] };
  if (variant === 'observation' || variant === 'observation-annotated' || variant === 'observation-done') {
    const annotated = variant === 'observation-annotated';
    // "Handled when the flow is done", with the node's default In flight (10): nothing wired back,
    // the runtime's hooks tell the node when the counter finished (its done()).
    const done = variant === 'observation-done';
    return [
      tab,
      {
        id: id('server'),
        type: 'observation-server',
        name: 'simulator',
        url: sim.apiUrl,
        wsUrl: '',
        serviceId: sim.serviceId,
        form: 'extended',
        authType: 'token',
        trustedMediaHosts: '',
        credentials: { token: sim.token },
      },
      {
        id: id('events'),
        type: 'observation-events',
        z: tab.id,
        name: '',
        server: id('server'),
        taskMode: 'all',
        tasks: [],
        taskIds: '',
        eventNames: '',
        minConfidence: '',
        objectNames: '',
        warningsOnly: false,
        // The P12 flow: the snapshot and the annotated snapshot with every event, as the person
        // alert example does.
        attachSnapshot: annotated,
        attachAnnotated: annotated,
        mediaWait: 10,
        lookBackMinutes: 60,
        ackMode: done ? 'done' : 'sent',
        wires: [[counter.id]],
      },
      counter,
    ];
  }
  const path = `${sim.wsUrl}/events/realtime/${sim.serviceId}/0?token=${encodeURIComponent(sim.token)}`;
  // An events node "when the flow is done" beside the websocket flow, on a simulator of its own (so
  // the measured stream is the websocket flow's alone). What it is sent goes to a delay node that
  // holds it for an hour: the event stays out, so our hooks stay in the runtime and every message
  // of the websocket flow passes them. Pointed at an address where nothing listens, the node would
  // never have an event out and the hooks would never be added (P2-hooks then measured a runtime
  // without them; the bench now checks).
  let idle: Record<string, unknown>[] = [];
  if (variant === 'websocket-hooked') {
    if (!idleSim) throw new Error("websocket-hooked needs the idle events node's simulator");
    idle = [
      { id: id('idle-tab'), type: 'tab', label: 'events node holding an event' },
      {
        id: id('idle-server'),
        type: 'observation-server',
        name: 'second simulator',
        url: idleSim.apiUrl,
        wsUrl: '',
        serviceId: idleSim.serviceId,
        form: 'extended',
        authType: 'token',
        trustedMediaHosts: '',
        credentials: { token: idleSim.token },
      },
      {
        id: id('idle-events'),
        type: 'observation-events',
        z: id('idle-tab'),
        server: id('idle-server'),
        taskMode: 'all',
        lookBackMinutes: 0,
        ackMode: 'done',
        // Longer than any round: core neither reports the held event late nor hands it over again.
        ackTimeout: 3600,
        wires: [[id('idle-hold')]],
      },
      {
        id: id('idle-hold'),
        type: 'delay',
        z: id('idle-tab'),
        pauseType: 'delay',
        timeout: '1',
        timeoutUnits: 'hours',
        rate: '1',
        nbRateUnits: '1',
        rateUnits: 'second',
        randomFirst: '1',
        randomLast: '5',
        randomUnits: 'seconds',
        drop: false,
        allowrate: false,
        outputs: 1,
        wires: [[]],
      },
    ];
  }
  return [
    ...idle,
    tab,
    {
      id: id('client'),
      type: 'websocket-client',
      path,
      tls: '',
      wholemsg: 'false',
      hb: '0',
      subprotocol: '',
    },
    {
      id: id('in'),
      type: 'websocket in',
      z: tab.id,
      name: '',
      server: '',
      client: id('client'),
      wires: [[id('json')]],
    },
    {
      id: id('json'),
      type: 'json',
      z: tab.id,
      name: '',
      property: 'payload',
      action: 'obj',
      pretty: false,
      wires: [[counter.id]],
    },
    counter,
  ];
}

async function deploy(
  variant: FlowVariant,
  sim: SimulatorAddresses,
  idleSim?: SimulatorAddresses,
): Promise<void> {
  const flows = flowFor(variant, sim, idleSim);
  const response = await fetch(`${adminUrl}/flows`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'Node-RED-API-Version': 'v2',
      'Node-RED-Deployment-Type': 'full',
    },
    body: JSON.stringify({ flows }),
  });
  if (response.status !== 200) throw new Error(`deploy failed: ${response.status} ${await response.text()}`);
  const ids = flows.filter((node) => node.type !== 'tab').map((node) => node.id as string);
  const started = now();
  while (!ids.every((nodeId) => RED.nodes.getNode(nodeId))) {
    if (now() - started > 10_000) throw new Error('deployed nodes did not start in time');
    await sleep(10);
  }
}

const IMAGES = Symbol.for('observation-bench-images');
/** What the counting node saw of images (bench-counter.js keeps it). */
function images(): { annotated: number; missing: number } {
  const global = globalThis as unknown as Record<symbol, { annotated: number; missing: number } | undefined>;
  global[IMAGES] ??= { annotated: 0, missing: 0 };
  return global[IMAGES];
}

/** The event loop's delay while it is watched (P12), sampled every 10 ms by Node itself. */
let loop: ReturnType<typeof monitorEventLoopDelay> | undefined;

async function perform(action: string, args: unknown[]): Promise<unknown> {
  const answered = answerTally(tally(), action, args);
  if (answered) return answered;
  if (action === 'deploy') {
    return deploy(args[0] as FlowVariant, args[1] as SimulatorAddresses, args[2] as SimulatorAddresses);
  }
  if (action === 'hooks') return ourHooks();
  if (action === 'images') {
    const seen = { ...images() };
    if (args[0] === true) Object.assign(images(), { annotated: 0, missing: 0 });
    return seen;
  }
  if (action === 'loopDelayStart') {
    loop?.disable();
    loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    return undefined;
  }
  if (action === 'loopDelayStop') {
    if (!loop) throw new Error('loopDelayStop without loopDelayStart');
    loop.disable();
    const ms = (ns: number) => ns / 1e6;
    const result = { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) };
    loop = undefined;
    return result;
  }
  throw new Error(`no action ${action}`);
}

serveIpc({ adminUrl }, perform, () => {
  server.closeAllConnections();
  RED.stop()
    .then(() => new Promise<void>((done) => server.close(() => done())))
    .finally(() => {
      rmSync(userDir, { recursive: true, force: true });
      process.exit(0);
    });
});
