import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, eventsNode, serverNode, sink, tab } from './harness/flows.js';
import { NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

function findFile(dir: string, name: string): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findFile(path, name);
      if (found) return found;
    } else if (entry.name === name) {
      return path;
    }
  }
  return undefined;
}

const ids = (messages: Record<string, unknown>[]) =>
  messages.map((msg) => (msg.payload as { id: number }).id);

/** Every record id a stored position claims as delivered. */
function storedIds(position: {
  streams?: Record<string, { ids?: Array<number | [number, number]> }>;
}): number[] {
  const out: number[] = [];
  for (const stream of Object.values(position.streams ?? {}))
    for (const entry of stream.ids ?? []) {
      if (typeof entry === 'number') out.push(entry);
      else for (let id = entry[0]; id <= entry[1]; id++) out.push(id);
    }
  return out;
}

/**
 * Whether a stored position says an event is done: its id is listed, or it happened before the
 * stream's `from` (a fresh start is live: an event from before it, delivered live because the
 * camera was slow, is behind the position and never read again, so no id is kept for it).
 */
function covered(
  position: { streams?: Record<string, { from?: string; ids?: Array<number | [number, number]> }> },
  event: { id: number; timestamp: string },
): boolean {
  if (storedIds(position).includes(event.id)) return true;
  const from = Object.values(position.streams ?? {})[0]?.from;
  return from !== undefined && Date.parse(event.timestamp) < Date.parse(from);
}

describe(`events node position in a persistent context store (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    // A messy deployment: cameras with their own latency, some events published late.
    sim = await startSimulator({
      seed: 13,
      cameraLatencyMs: { min: 0, max: 1_500 },
      latePublication: { share: 0.1, minMs: 2_000, maxMs: 20_000 },
    });
    // What a user sets in settings.js to keep context across restarts (written at once here).
    red = await NodeRedHarness.start({
      contextStorage: { default: { module: 'localfilesystem', config: { flushInterval: 0 } } },
    });
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });

  const readStored = () => readStoredOf('events-node');
  const readStoredOf = (nodeId: string) => {
    const file = findFile(join(red.userDir, 'context'), `${nodeId}.json`);
    if (!file) return undefined;
    return (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)['observation-position'] as
      | {
          format?: string;
          neverConnected?: boolean;
          streams?: Record<string, { from?: string; ids?: Array<number | [number, number]> }>;
        }
      | undefined;
  };

  it("writes core's position to the context file, and a restart catches up exactly what it missed", async () => {
    const flow = [tab(), serverNode(sim), sink('out'), eventsNode('events-node', ['out'])];
    const startedMs = Date.now();
    await red.deploy(flow);
    await waitUntil(() => sim.control.stats().openSockets === 1, 5_000, 'connected');
    const first = await sim.control.emit(5);
    await red.waitFor('out', (list) => list.length === 5);
    await red.setFlowState('stop');
    await waitUntil(
      () => {
        const stored = readStored();
        return stored !== undefined && first.every((event) => covered(stored, event));
      },
      5_000,
      'the position in the context file',
    );
    expect(readStored()?.format).toBe('observation-position');

    // While Node-RED is stopped: events on time and late ones (only history has them). The node
    // started fresh, so it covers what happened after its start: the late ones must have happened
    // after it (a clock wait, not a negative check; the sentinel below is the evidence).
    const lateMs = 3_000;
    const wait = startedMs + lateMs + 2_000 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const whileStopped = await sim.control.emit(6);
    const late = await sim.control.emit(2, { latenessMs: lateMs });
    red.clear();
    await red.setFlowState('start');
    const sentinelWait = red.waitFor('out', (list) => list.length >= 8);
    await sentinelWait;
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    const got = await red.waitFor('out', (list) => ids(list).includes(sentinel?.id as number));
    expect(ids(got).sort((a, b) => a - b)).toEqual(
      [...whileStopped, ...late, sentinel].map((event) => event?.id as number).sort((a, b) => a - b),
    );
    // Core saves at most once a second under a stream of events; the last one lands soon after.
    await waitUntil(
      () => storedIds(readStored() ?? {}).includes(sentinel?.id as number),
      5_000,
      'the last save',
    );
  });

  it('a corrupt stored position is reported once and the node runs from its look-back', async () => {
    const events = red.node<{ context(): { set(key: string, value: unknown): void } }>('events-node');
    // What a hand-edited or foreign context file would hold; the node is replaced (its context
    // stays) by the redeploy below, and the old one has nothing new to save when it closes.
    events?.context().set('observation-position', { format: 'observation-position', version: 7 });
    red.clear();
    await red.deploy([
      tab(),
      serverNode(sim),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
      eventsNode('events-node', ['out'], { name: 'redeployed' }),
    ]);
    const errors = await red.waitFor('errors', (list) => list.length >= 1);
    expect(String((errors[0]?.error as { message?: string })?.message)).toMatch(/version 7/);
    await waitUntil(() => sim.control.stats().openSockets === 1, 5_000, 'connected');
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    await red.waitFor('out', (list) => ids(list).includes(sentinel?.id as number));
    expect(red.messages('errors')).toHaveLength(1);
  });

  it('a node first deployed with a wrong token, then fixed, starts live: the time it spent refused is not replayed', {
    timeout: 120_000,
  }, async () => {
    const flow = (token: string) => [
      tab(),
      serverNode(sim, { credentials: { token } }),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
      eventsNode('token-node', ['out']),
    ];
    red.clear();
    await red.deploy(flow('not-a-valid-token'));
    const refused = await red.waitFor('errors', (list) => list.length >= 1, 30_000);
    expect(String((refused[0]?.error as { message?: string })?.message)).toMatch(/401/);
    await waitUntil(
      () => readStoredOf('token-node')?.neverConnected === true,
      30_000,
      'the refused start saved',
    );
    // Within the node's 60-minute look-back: a catch-up from where the refused start began would
    // deliver them (the report: 499 events and 81 alerts at once).
    await sim.control.emit(3, { latenessMs: 0 });
    red.clear();
    await red.deploy(flow(sim.token));
    // Its socket open (the refused node never had one): a sentinel published from now on is live.
    await waitUntil(
      () => readStoredOf('token-node')?.neverConnected === undefined && sim.control.stats().openSockets === 1,
      30_000,
      'connected',
    );
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    const got = await red.waitFor('out', (list) => ids(list).includes(sentinel?.id as number), 30_000);
    expect(ids(got)).toEqual([sentinel?.id]);
    expect(red.messages('errors')).toEqual([]);
  });
});
