import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, eventsNode, joinNode, serverNode, sink, splitNode, tab } from './harness/flows.js';
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
const errorOf = (msg: Msg | undefined) => msg?.error as { message?: string; source?: { id?: string } };
const count = (ids: unknown[], id: unknown) => ids.filter((each) => each === id).length;

/** A switch passing events whose id is not a multiple of 3 (JSONata, evaluated asynchronously). */
function dropThirds(id: string, wires: string[], eventId = 'payload.id'): FlowNode {
  return {
    id,
    type: 'switch',
    z: 'tab-1',
    property: `${eventId} % 3`,
    propertyType: 'jsonata',
    rules: [{ t: 'neq', v: '0', vt: 'num' }],
    checkall: 'true',
    repair: false,
    outputs: 1,
    wires: [wires],
  };
}

/**
 * "When the flow is done": Node-RED's runtime says when the flow finished with an event's messages
 * (the node's hooks); core keeps the deadline and the attempts. Each flow shape ends with a
 * sentinel event: it arrives only if nothing before it stopped the stream.
 */
describe(`events node, handled when the flow is done (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;
  /** A tiny HTTP server answering late (100–300 ms), counting the requests it holds at once. */
  let slow: Server;
  let slowUrl: string;
  let open = 0;
  let mostOpen = 0;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 71, historySize: 5 });
    red = await NodeRedHarness.start();
    slow = createServer((req, res) => {
      open++;
      mostOpen = Math.max(mostOpen, open);
      const id = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('id'));
      setTimeout(
        () => {
          open--;
          res.end(`ok ${id}`);
        },
        100 + (id % 3) * 100,
      );
    });
    await new Promise<void>((ready) => slow.listen(0, '127.0.0.1', ready));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
    slow?.close();
  });
  afterEach(async () => {
    await red.deploy([]);
    red.clear();
    sim.control.reset();
    // A sentinel's request may still be out: the next test counts its own.
    await waitUntil(() => open === 0, 10_000, 'no request out');
    mostOpen = 0;
  });

  async function deploy(nodes: FlowNode[], sockets = 1) {
    await red.deploy([tab(), serverNode(sim), sink('errors'), catchNode('catch-node', 'errors'), ...nodes]);
    await waitUntil(() => sim.control.stats().openSockets === sockets, 10_000, 'connected');
  }

  /** Emits one more event and waits until the events node sent it: the stream did not stall. */
  async function sentinel(seenSink: string): Promise<number> {
    const [last] = await sim.control.emit(1);
    await red.waitFor(seenSink, (list) => list.some((msg) => idOf(msg) === last?.id), 20_000);
    return last?.id as number;
  }

  it('default settings: a filtering switch, failing functions and a late http request; each passing event once, nothing again, each failure once', async () => {
    await deploy([
      // Defaults: In flight 10, Done within 60 s, failed or late: let go.
      eventsNode('events', ['seen', 'filter'], { ackMode: 'done' }),
      sink('seen'),
      dropThirds('filter', ['work']),
      {
        id: 'work',
        type: 'function',
        z: 'tab-1',
        name: 'fail some',
        func: [
          'const id = msg.payload.id;',
          "if (id % 5 === 0) { node.error(new Error('rejected ' + id), msg); return null; }",
          "if (id % 7 === 0) throw new Error('broken ' + id);",
          `msg.url = '${slowUrl}?id=' + id;`,
          'msg.eventId = id;',
          'return msg;',
        ].join('\n'),
        outputs: 1,
        wires: [['request']],
      },
      {
        id: 'request',
        type: 'http request',
        z: 'tab-1',
        method: 'GET',
        ret: 'txt',
        url: '',
        wires: [['end']],
      },
      sink('end'),
    ]);
    const ids = (await sim.control.emit(40)).map((event) => event.id as number);
    const passing = ids.filter((id) => id % 3 !== 0);
    const failing = passing.filter((id) => id % 5 === 0 || id % 7 === 0);
    const reaching = passing.filter((id) => !failing.includes(id));
    await red.waitFor('end', (list) => list.length === reaching.length, 30_000);
    await sentinel('seen');
    await red.waitFor('errors', (list) => list.length === failing.length, 10_000);

    const ended = red.messages('end').map((msg) => msg.eventId);
    expect([...ended].sort()).toEqual([...reaching].sort());
    expect(red.messages('end').every((msg) => msg.payload === `ok ${msg.eventId}`)).toBe(true);
    // Nothing entered the flow twice: not the filtered ones, not the failed ones.
    const seen = red.messages('seen').map(idOf);
    for (const id of ids) expect(count(seen, id)).toBe(1);
    // Each failure reported once, by Node-RED, naming the function node; the events node adds nothing.
    const errors = red.messages('errors');
    expect(errors.map(idOf).sort()).toEqual([...failing].sort());
    expect(errors.every((msg) => errorOf(msg).source?.id === 'work')).toBe(true);
    // The node waited for the flow: never more than In flight events at the slow step.
    expect(mostOpen).toBeGreaterThan(1);
    expect(mostOpen).toBeLessThanOrEqual(10);
  });

  it('example 07 with a switch before the file node: the complete node wired back still works, the filtered events do not stop the stream', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'observation-example-07-'));
    try {
      const example = JSON.parse(
        readFileSync(join(packageRoot, 'examples', '07 events handled when the flow is done.json'), 'utf8'),
      ) as FlowNode[];
      const log = join(dir, 'events.log');
      const flows = example.map((node) => {
        if (node.type === 'observation-server')
          return { ...node, url: sim.apiUrl, serviceId: sim.serviceId, credentials: sim.credentials };
        if (node.type === 'file') return { ...node, filename: log, filenameType: 'str' };
        // The flow: a switch between "one line per event" and "append to the log".
        if (node.id === 'obs-ex07-line') return { ...node, wires: [['odd-only']] };
        if (node.type === 'observation-events') return { ...node, wires: [['obs-ex07-line', 'seen']] };
        return node;
      });
      const events = example.find((node) => node.type === 'observation-events');
      expect(events).toMatchObject({ ackMode: 'done', maxInFlight: 10, ackTimeoutAction: 'retry' });
      expect(
        example.some((node) => node.type === 'complete' && (node.wires as string[][])[0]?.[0] === events?.id),
      ).toBe(true);
      await red.deploy([
        ...flows,
        // The line ends with the event id.
        {
          ...dropThirds('odd-only', ['obs-ex07-file'], "$number($split(payload, ' ')[-1])"),
          z: 'obs-ex07-tab',
        },
        sink('seen', 'obs-ex07-tab'),
        sink('errors'),
        catchNode('catch-node', 'errors', 'obs-ex07-tab'),
      ]);
      await waitUntil(() => sim.control.stats().openSockets === 1, 10_000, 'connected');
      // Three times In flight; a third of them filtered out.
      const ids = (await sim.control.emit(30)).map((event) => event.id as number);
      const passing = ids.filter((id) => id % 3 !== 0);
      const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
      await waitUntil(() => lines().length === passing.length, 20_000, 'a line per passing event');
      const last = await sentinel('seen');
      if (last % 3 !== 0) passing.push(last);
      await waitUntil(() => lines().length === passing.length, 20_000, 'the sentinel written');
      expect(lines().map((line) => Number(line.split(' ').at(-1)))).toEqual(passing);
      const seen = red.messages('seen').map(idOf);
      for (const id of ids) expect(count(seen, id)).toBe(1);
      expect(red.messages('errors')).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a fresh message, split and joined: an event is done when its joined message is, through a late request per part', async () => {
    await deploy([
      // In flight 1: the next event goes out only once the previous one is done.
      eventsNode('events', ['seen', 'parts'], { ackMode: 'done', maxInFlight: 1 }),
      sink('seen'),
      {
        id: 'parts',
        type: 'function',
        z: 'tab-1',
        name: 'three parts',
        // A message built afresh: the function node gives it the event's _msgid, nothing else.
        func: `return { event: msg.payload.id, payload: [0, 1, 2].map((n) => msg.payload.id * 10 + n) };`,
        outputs: 1,
        wires: [['split-1']],
      },
      splitNode('split-1', ['url']),
      {
        id: 'url',
        type: 'function',
        z: 'tab-1',
        func: `msg.url = '${slowUrl}?id=' + msg.payload; return msg;`,
        outputs: 1,
        wires: [['request']],
      },
      {
        id: 'request',
        type: 'http request',
        z: 'tab-1',
        method: 'GET',
        ret: 'txt',
        url: '',
        wires: [['join-1']],
      },
      joinNode('join-1', ['end'], { mode: 'auto' }),
      sink('end'),
    ]);
    const ids = (await sim.control.emit(4)).map((event) => event.id as number);
    await red.waitFor('end', (list) => list.length === 4, 20_000);
    await sentinel('seen');
    const ends = red.messages('end');
    expect(ends.map((msg) => msg.event)).toEqual(ids);
    expect(ends.map((msg) => msg.payload)).toEqual(
      ids.map((id) => [0, 1, 2].map((n) => `ok ${id * 10 + n}`)),
    );
    // Each event went out only after the previous one's joined message reached the end.
    const order = red
      .messages('seen')
      .map((msg) => idOf(msg))
      .slice(1, 4);
    expect(order).toEqual(ids.slice(1));
    for (const [index, id] of ids.slice(1).entries()) {
      const sentAt = red.messages('seen').findIndex((msg) => idOf(msg) === id);
      expect(sentAt).toBe(index + 1);
    }
    expect(mostOpen).toBe(3);
    expect(red.messages('errors')).toEqual([]);
  });

  it('a node that never finishes: reported once to Catch after Done within, let go, and the stream goes on', async () => {
    await deploy([
      eventsNode('events', ['hold'], { ackMode: 'done', maxInFlight: 1, ackTimeout: 1 }),
      { id: 'hold', type: 'test-hold', z: 'tab-1', wires: [[]] },
    ]);
    const [first] = await sim.control.emit(1);
    const [second] = await sim.control.emit(1);
    await waitUntil(() => held('hold').length === 2, 15_000, 'the second event');
    expect(held('hold').map((entry) => idOf(entry.msg))).toEqual([first?.id, second?.id]);
    const errors = red.messages('errors');
    expect(errors).toHaveLength(1);
    expect(errorOf(errors[0]).message).toContain(
      `did not finish event ${first?.id} within 1 s: it counts as handled`,
    );
    expect(errorOf(errors[0]).source?.id).toBe('events');
    // The first one finishing late changes nothing; the third goes out once the second is done.
    held('hold')[0]?.release();
    held('hold')[1]?.release();
    const [third] = await sim.control.emit(1);
    await waitUntil(() => held('hold').length === 3, 10_000, 'the third event');
    expect(idOf(held('hold')[2]?.msg)).toBe(third?.id);
    expect(red.messages('errors')).toHaveLength(1);
  });

  it('a late event whose message a node still holds stays counted until the node lets it go; then the hooks go', async () => {
    await deploy([
      eventsNode('events', ['hold'], { ackMode: 'done', maxInFlight: 2, ackTimeout: 1 }),
      { id: 'hold', type: 'test-hold', z: 'tab-1', wires: [[]] },
    ]);
    const [event] = await sim.control.emit(1);
    await waitUntil(() => red.messages('errors').length === 1, 15_000, 'the late report');
    expect(errorOf(red.messages('errors')[0]).message).toContain(
      `did not finish event ${event?.id} within 1 s: it counts as handled. It is still held by test-hold node hold`,
    );
    // Core let the event go; its message is still in the flow, and still counted.
    expect(held('hold').map((entry) => idOf(entry.msg))).toEqual([event?.id]);
    expect(red.RED.hooks.has('preDeliver.observationEventsDone')).toBe(true);
    held('hold')[0]?.release();
    await waitUntil(
      () => !red.RED.hooks.has('preDeliver.observationEventsDone'),
      10_000,
      'the hooks gone with the last message',
    );
  });

  it('send again while a join holds the event past Done within: the next attempt waits for that copy, and the group holds each event once', async () => {
    await deploy([
      eventsNode('events', ['join-3'], {
        ackMode: 'done',
        ackTimeout: 1,
        ackTimeoutAction: 'retry',
        ackAttempts: 3,
      }),
      joinNode('join-3', ['joined'], { count: '3' }),
      sink('joined'),
    ]);
    const [first] = await sim.control.emit(1);
    // Reported late, naming the join; the report comes right after core handed attempt 2 over.
    await waitUntil(() => red.messages('errors').length === 1, 15_000, 'the late report');
    expect(errorOf(red.messages('errors')[0]).message).toMatch(
      new RegExp(
        `did not finish event ${first?.id} within 1 s: delivering it again .*It is still held by join node join-3`,
      ),
    );
    const rest = (await sim.control.emit(2)).map((event) => event.id);
    await red.waitFor('joined', (list) => list.length > 0, 15_000);
    const joined = red.messages('joined')[0]?.payload as { id: number }[];
    // Sent beside the held copy, the first event would fill two of the group's three places.
    expect(joined.map((event) => event.id)).toEqual([first?.id, ...rest]);
  });

  it('joined into one message: every event in it is done when that message is, not when the join sends it', async () => {
    // The join sends the message it made with the first event's ids, then completes the three
    // messages it made it from: the other two counted as done there, while their message waited
    // further on (a kill then lost them). Here that message waits in the hold node past Done
    // within: each of its three events is reported late, none is done before.
    await deploy([
      eventsNode('events', ['join-3'], { ackMode: 'done', ackTimeout: 1 }),
      joinNode('join-3', ['hold'], { count: '3' }),
      { id: 'hold', type: 'test-hold', z: 'tab-1', wires: [[]] },
    ]);
    // The event each late report names (the report's message carries no payload).
    const late = () =>
      red
        .messages('errors')
        .map((msg) => Number(/did not finish event (\d+)/.exec(errorOf(msg).message ?? '')?.[1]));
    const batches: number[][] = [];
    for (const round of [1, 2]) {
      const ids = (await sim.control.emit(3)).map((event) => event.id as number);
      batches.push(ids);
      await waitUntil(() => held('hold').length === round, 15_000, `joined message ${round}`);
      const joined = held('hold')[round - 1]?.msg.payload as { id: number }[];
      expect(joined.map((event) => event.id)).toEqual(ids);
      // The second round's reports are the evidence that the first round has no more to come.
      await waitUntil(() => ids.every((id) => late().includes(id)), 15_000, `late reports of round ${round}`);
    }
    expect([...late()].sort((a, b) => a - b)).toEqual(batches.flat());
    // Each report says where its event waits: in the message the join made, held by the hold node.
    for (const error of red.messages('errors')) {
      expect(errorOf(error).message).toMatch(
        /: the flow did not finish event \d+ within 1 s: it counts as handled\. It is still held by test-hold node hold, which must let it go within Done within/,
      );
    }
    for (const entry of held('hold')) entry.release();
  });

  it('send again, while a node still holds the event: each attempt waits for that copy (nothing is sent beside it), one report, then let go', async () => {
    await deploy([
      eventsNode('events', ['hold'], {
        ackMode: 'done',
        maxInFlight: 1,
        ackTimeout: 1,
        ackTimeoutAction: 'retry',
        ackAttempts: 2,
      }),
      { id: 'hold', type: 'test-hold', z: 'tab-1', wires: [[]] },
    ]);
    const [event] = await sim.control.emit(1);
    const [next] = await sim.control.emit(1);
    // In flight 1: the next event goes out once core gave the first up, after its second attempt.
    await waitUntil(() => held('hold').length === 2, 15_000, 'the event, then the next event');
    expect(held('hold').map((entry) => [idOf(entry.msg), entry.msg.attempt])).toEqual([
      [event?.id, undefined],
      [next?.id, undefined],
    ]);
    const errors = red.messages('errors');
    expect(errors).toHaveLength(1);
    expect(errorOf(errors[0]).message).toContain(
      `did not finish event ${event?.id} within 1 s: delivering it again (attempt 2 of at most 2, then it counts as handled). It is still held by test-hold node hold`,
    );
  });

  it('send again: an event a node ends with an error goes out again (msg.attempt) until it is done or out of Attempts, each failure reported once', async () => {
    const notesBefore = red.notes.length;
    await deploy([
      eventsNode('events', ['seen', 'work'], {
        ackMode: 'done',
        // In flight 1: the sentinel goes out only once the events before it are finished for good.
        maxInFlight: 1,
        ackTimeoutAction: 'retry',
        ackAttempts: 3,
      }),
      sink('seen'),
      {
        id: 'work',
        type: 'function',
        z: 'tab-1',
        name: 'refuse',
        // Node-RED's function node turns both a throw and a rejection (a later turn) into done(err).
        // The first event it gets is refused twice and passes the third time; any other is refused
        // every time.
        func: [
          'const id = msg.payload.id;',
          'const attempt = msg.attempt ?? 1;',
          "if (context.get('first') === undefined) context.set('first', id);",
          "if (attempt === 1) throw new Error('refused ' + id + ' at once');",
          "if (id !== context.get('first') || attempt === 2) {",
          '  await new Promise((next) => setTimeout(next, 0));',
          "  throw new Error('refused ' + id + ' later');",
          '}',
          'return msg;',
        ].join('\n'),
        outputs: 1,
        wires: [['end']],
      },
      sink('end'),
    ]);
    // In flight 1: the function gets them in this order.
    const [passes, refused] = (await sim.control.emit(2)).map((event) => event.id as number) as [
      number,
      number,
    ];
    // Out only once both events are finished: every attempt of theirs has arrived by then.
    const last = await sentinel('seen');
    const attempts = (id: number) =>
      red
        .messages('seen')
        .filter((msg) => idOf(msg) === id)
        .map((msg) => msg.attempt);
    // The first: delivered again after each failure, done at the third attempt.
    expect(attempts(passes)).toEqual([undefined, 2, 3]);
    expect(red.messages('end').filter((msg) => idOf(msg) === passes)).toMatchObject([{ attempt: 3 }]);
    // The second: three attempts, then let go (the sentinel came after it, nothing a fourth time).
    expect(attempts(refused)).toEqual([undefined, 2, 3]);
    expect(red.messages('end').some((msg) => idOf(msg) === refused)).toBe(false);
    // Catch gets Node-RED's own report of every failed attempt, naming the function node. The
    // sentinel is refused too: its report comes after those of the events before it.
    await red.waitFor('errors', (list) => list.some((msg) => idOf(msg) === last), 10_000);
    const errors = red.messages('errors').filter((msg) => idOf(msg) !== last);
    expect(errors.map(idOf).sort()).toEqual([passes, passes, refused, refused, refused].sort());
    expect(errors.every((msg) => errorOf(msg).source?.id === 'work')).toBe(true);
    // The events node logs once per event what became of it, naming the node that failed.
    const notes = red.notes
      .slice(notesBefore)
      .filter((entry) => entry.id === 'events')
      .map((entry) => String(entry.msg));
    for (const id of [passes, refused]) {
      const mine = notes.filter((note) => note.includes(`failed for event ${id}:`));
      expect(mine).toHaveLength(1);
      // The function's Error is of the sandbox's realm: its text may keep the "Error: " prefix.
      expect(mine[0]).toMatch(new RegExp(`function node "refuse" failed: (Error: )?refused ${id} at once;`));
      expect(mine[0]).toContain('delivering it again (attempt 2 of at most 3');
    }
  });

  it('let go: an event a node ends with an error is delivered once, reported once, and the stream goes on', async () => {
    const notesBefore = red.notes.length;
    await deploy([
      // Attempts is for "send again" only: "let go" releases at the first failure.
      eventsNode('events', ['seen', 'work'], {
        ackMode: 'done',
        maxInFlight: 1,
        ackTimeoutAction: 'release',
        ackAttempts: 3,
      }),
      sink('seen'),
      {
        id: 'work',
        type: 'function',
        z: 'tab-1',
        name: 'refuse',
        func: "throw new Error('refused ' + msg.payload.id);",
        outputs: 1,
        wires: [['end']],
      },
      sink('end'),
    ]);
    const [event] = await sim.control.emit(1);
    const id = event?.id as number;
    // Out only once the event is finished: a second attempt of it would have arrived before.
    const last = await sentinel('seen');
    // The sentinel is refused too: its report to Catch comes after the event's.
    await red.waitFor('errors', (list) => list.some((msg) => idOf(msg) === last), 10_000);
    expect(count(red.messages('seen').map(idOf), id)).toBe(1);
    expect(red.messages('seen').every((msg) => msg.attempt === undefined)).toBe(true);
    const errors = red.messages('errors').filter((msg) => idOf(msg) === id);
    expect(errors).toHaveLength(1);
    expect(errorOf(errors[0]).source?.id).toBe('work');
    expect(red.messages('end')).toEqual([]);
    // The events node was told the event failed, and let it go: logged once, naming the node.
    const notes = red.notes
      .slice(notesBefore)
      .filter((entry) => entry.id === 'events' && String(entry.msg).includes(`failed for event ${id}:`))
      .map((entry) => String(entry.msg));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      new RegExp(`function node "refuse" failed: (Error: )?refused ${id}; it counts as handled$`),
    );
  });

  it('its hooks are in the runtime once, only while an event of a node "when the flow is done" is out, and gone with the last node', async () => {
    const hooks = (red.RED as unknown as { hooks: { has(id: string): boolean } }).hooks;
    const registered = () =>
      ['preDeliver', 'onComplete'].filter((hook) => hooks.has(`${hook}.observationEventsDone`)).length;
    expect(registered()).toBe(0);
    const request = {
      id: 'request',
      type: 'http request',
      z: 'tab-1',
      method: 'GET',
      ret: 'txt',
      url: `${slowUrl}?id=1`,
      wires: [['end']],
    };
    const nodes = [
      eventsNode('done-1', ['request'], { ackMode: 'done' }),
      eventsNode('done-2', [], { ackMode: 'done' }),
      eventsNode('sent', []),
      request,
      sink('end'),
    ];
    await deploy(nodes, 3);
    // Deployed, and no event out: the runtime's other flows pay nothing.
    expect(registered()).toBe(0);
    await sim.control.emit(1);
    await waitUntil(() => open > 0, 10_000, "the event's request out");
    expect(registered()).toBe(2);
    // The request's answer replaces the payload: the one message at the end is the event's.
    await red.waitFor('end', (list) => list.length === 1, 10_000);
    await waitUntil(() => registered() === 0, 10_000, 'the hooks gone once the event finished');
    // The nodes "when the flow is done" go while an event is out: the hooks go with them.
    await sim.control.emit(1);
    await waitUntil(() => open > 0, 10_000, "the next event's request out");
    expect(registered()).toBe(2);
    await red.deploy(
      [tab(), serverNode(sim), sink('errors'), catchNode('catch-node', 'errors'), nodes[2] as FlowNode],
      'nodes',
    );
    await waitUntil(() => registered() === 0, 10_000, 'the hooks gone with the last node');
    expect(red.messages('errors')).toEqual([]);
  });

  it('refuses a bad Done within, In flight or Attempts, naming the field', async () => {
    await deploy(
      [
        eventsNode('events', [], { ackMode: 'done', ackTimeout: '0' }),
        eventsNode('events-2', [], { ackMode: 'done', maxInFlight: 'many' }),
        eventsNode('events-3', [], { ackMode: 'done', ackTimeoutAction: 'retry', ackAttempts: 11 }),
      ],
      0,
    );
    await red.waitFor('errors', (list) => list.length === 3);
    const texts = red
      .messages('errors')
      .map((msg) => String(errorOf(msg).message))
      .sort();
    expect(texts[0]).toContain('Invalid Attempts: got 11; expected a whole number from 1 to 10');
    expect(texts[1]).toContain('Invalid Done within: got "0"; expected a whole number from 1 to 86400');
    expect(texts[2]).toContain('Invalid In flight: got "many"; expected a whole number from 1 to 10000');
  });
});
