import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, eventsNode, serverNode, sink, tab } from './harness/flows.js';
import { type FlowNode, NodeRedHarness, nodeRedPackage, packageRoot } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

type Msg = Record<string, unknown>;
interface Held {
  msg: Msg;
  release(): void;
}

/** What the test-hold node holds, by node id (the test nodes' process-wide bus). */
function held(id: string): Held[] {
  const bus = (globalThis as Record<symbol, { held?: Map<string, Held[]> }>)[
    Symbol.for('observation-test-bus')
  ];
  return bus?.held?.get(id) ?? [];
}

const idOf = (msg: Msg | undefined) => (msg?.payload as { id?: number } | undefined)?.id;
const errorText = (msg: Msg | undefined) => String((msg?.error as { message?: string })?.message);

/**
 * "When the flow is done": the events node counts an event as handled when its message comes back
 * to its input, here from Node-RED's own `complete` node watching an asynchronous step (test-hold,
 * which the test finishes in any order).
 */
describe(`events node, handled when the flow is done (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 71, historySize: 5 });
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    red.clear();
    sim.control.reset();
  });

  /** events → hold, a complete node on hold wired back to events, a Catch node into `errors`. */
  async function deploy(events: Record<string, unknown>, extra: FlowNode[] = [], sockets = 1) {
    await red.deploy([
      tab(),
      serverNode(sim),
      sink('errors'),
      catchNode('catch-node', 'errors'),
      eventsNode('events', ['hold'], { ackMode: 'done', ...events }),
      { id: 'hold', type: 'test-hold', z: 'tab-1', wires: [[]] },
      { id: 'done', type: 'complete', z: 'tab-1', scope: ['hold'], uncaught: false, wires: [['events']] },
      ...extra,
    ]);
    await waitUntil(() => sim.control.stats().openSockets === sockets, 10_000, 'connected');
  }

  it('keeps at most In flight messages out, and takes them back in any order', async () => {
    // A second node "when sent" on the same server: once it has an event, the service pushed it.
    await deploy({ maxInFlight: 2 }, [sink('seen'), eventsNode('watch', ['seen'])], 2);
    let released = 0;
    const release = (index: number) => {
      // Never more than two out (sent, not back) whenever the test looks.
      expect(held('hold').length - released).toBeLessThanOrEqual(2);
      held('hold')[index]?.release();
      released += 1;
    };
    const emitted = (await sim.control.emit(6)).map((event) => event.id);
    await red.waitFor('seen', (list) => list.length === 6);
    await waitUntil(() => held('hold').length === 2, 10_000, 'two messages out');
    expect(typeof held('hold')[0]?.msg._observationAck).toBe('string');

    // The second back first: one slot is free, one more goes out.
    release(1);
    await waitUntil(() => held('hold').length === 3, 10_000, 'a third message out');
    release(0);
    release(2);
    await waitUntil(() => held('hold').length === 5, 10_000, 'five out');
    release(4);
    release(3);
    await waitUntil(() => held('hold').length === 6, 10_000, 'six out');
    release(5);
    expect(held('hold').map((entry) => idOf(entry.msg))).toEqual(emitted);
    // The acknowledgements were taken quietly: nothing reached Catch.
    expect(red.messages('errors')).toEqual([]);
  });

  it('reports a message not back in time once to Catch, and sends the event again', async () => {
    await deploy({ maxInFlight: 1, ackTimeout: 1, ackTimeoutAction: 'retry' });
    const [event] = await sim.control.emit(1);
    // The hold never lets the first three copies go: the event is sent again after each second.
    await waitUntil(() => held('hold').length >= 3, 15_000, 'three copies');
    const copies = held('hold').slice(0, 3);
    expect(copies.map((entry) => idOf(entry.msg))).toEqual([event?.id, event?.id, event?.id]);
    expect(new Set(copies.map((entry) => entry.msg._observationAck)).size).toBe(1);
    // Reported once, with the event's message, though it timed out at least twice.
    const errors = red.messages('errors');
    expect(errors).toHaveLength(1);
    expect(errorText(errors[0])).toContain(
      `Event ${event?.id} not back from the flow within 1 s: sending it again`,
    );
    expect(idOf(errors[0])).toBe(event?.id);

    // The first copy coming back acknowledges the event: the next event goes out.
    copies[0]?.release();
    const [next] = await sim.control.emit(1);
    await waitUntil(
      () => held('hold').some((entry) => idOf(entry.msg) === next?.id),
      10_000,
      'the next event',
    );
  });

  it('reports a message not back in time once to Catch, and lets it go when asked', async () => {
    await deploy({ maxInFlight: 1, ackTimeout: 1, ackTimeoutAction: 'release' });
    const [first] = await sim.control.emit(1);
    const [second] = await sim.control.emit(1);
    // The first never comes back; after a second it is let go and the second goes out.
    await waitUntil(() => held('hold').length === 2, 15_000, 'the second event');
    expect(held('hold').map((entry) => idOf(entry.msg))).toEqual([first?.id, second?.id]);
    const errors = red.messages('errors');
    expect(errors).toHaveLength(1);
    expect(errorText(errors[0])).toContain(`Event ${first?.id} not back from the flow within 1 s: let go`);
    // The first copy coming back late is taken and ignored (no control-message error).
    held('hold')[0]?.release();
    held('hold')[1]?.release();
    const [third] = await sim.control.emit(1);
    await waitUntil(() => held('hold').length === 3, 10_000, 'the third event');
    expect(idOf(held('hold')[2]?.msg)).toBe(third?.id);
    expect(red.messages('errors')).toHaveLength(1);
  });

  it('refuses a bad Done within or In flight, naming the field', async () => {
    await red.deploy([
      tab(),
      serverNode(sim),
      sink('errors'),
      catchNode('catch-node', 'errors'),
      eventsNode('events', [], { ackMode: 'done', ackTimeout: '0' }),
      eventsNode('events-2', [], { ackMode: 'done', maxInFlight: 'many' }),
    ]);
    await red.waitFor('errors', (list) => list.length === 2);
    const texts = red.messages('errors').map(errorText).sort();
    expect(texts[0]).toContain('Invalid Done within: got "0"; expected a whole number from 1 to 86400');
    expect(texts[1]).toContain('Invalid In flight: got "many"; expected a whole number from 1 to 10000');
  });

  it('example 07 (file node, complete node back to the events node) writes every event, beyond In flight', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'observation-example-07-'));
    try {
      const example = JSON.parse(
        readFileSync(join(packageRoot, 'examples', '07 events handled when the flow is done.json'), 'utf8'),
      ) as FlowNode[];
      const log = join(dir, 'events.log');
      const flows = example.map((node) => {
        // This test's simulator (its seed): its address, service id and login.
        if (node.type === 'observation-server')
          return { ...node, url: sim.apiUrl, serviceId: sim.serviceId, credentials: sim.credentials };
        if (node.type === 'file') return { ...node, filename: log, filenameType: 'str' };
        return node;
      });
      await red.deploy([...flows, sink('errors'), catchNode('catch-node', 'errors', 'obs-ex07-tab')]);
      await waitUntil(() => sim.control.stats().openSockets === 1, 10_000, 'connected');
      const events = example.find((node) => node.type === 'observation-events');
      expect(events).toMatchObject({ ackMode: 'done', maxInFlight: 10 });
      // Three times In flight: only acknowledged events make room for the next ones.
      const emitted = await sim.control.emit(30);
      const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
      await waitUntil(() => lines().length === 30, 20_000, 'thirty lines');
      expect(lines().map((line) => Number(line.split(' ').at(-1)))).toEqual(emitted.map((event) => event.id));
      expect(red.messages('errors')).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
