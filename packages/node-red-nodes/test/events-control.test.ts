import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, eventsNode, serverNode, sink, source, statusNode, tab } from './harness/flows.js';
import { NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

type Msg = Record<string, unknown>;
const idOf = (msg: Msg) => (msg.payload as { id: number }).id;
const statusTexts = (list: Msg[]) =>
  list.map((msg) => (msg.status as { text?: string } | undefined)?.text ?? '');

/**
 * The events node driven from a flow (msg.action), in a real Node-RED: pause keeps the position
 * and resume catches up what was published meanwhile, exactly once; subscribe changes the tasks
 * (a stream of its own, live) or the filters; bad values are reported and change nothing.
 */
describe(`events node input: pause, resume, subscribe (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 61 });
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    red.clear();
  });

  async function deployed(overrides: Record<string, unknown> = {}): Promise<void> {
    const startedMs = Date.now();
    await red.deploy([
      tab(),
      serverNode(sim),
      source('control', ['events']),
      eventsNode('events', ['out'], { taskMode: 'ids', taskIds: '1,2', ...overrides }),
      sink('out'),
      catchNode('catch-node', 'errors'),
      sink('errors'),
      statusNode('status-node', 'status'),
      sink('status'),
    ]);
    await waitUntil(() => sim.control.stats().openSockets === 1, 10_000, 'connected');
    // A fresh start is live from its start second: publish once the node is past it.
    const wait = startedMs + 1_100 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  it('pause keeps the position; resume catches up what was published while paused, each event once', async () => {
    await deployed();
    const before = await sim.control.emit(3, { taskIds: [1, 2], latenessMs: 0 });
    await red.waitFor('out', (list) => list.length === 3);
    red.inject('control', { action: 'pause' });
    await waitUntil(() => sim.control.stats().openSockets === 0, 10_000, 'the socket closed');
    await waitUntil(
      () => statusTexts(red.messages('status')).some((text) => text.startsWith('paused')),
      5_000,
      'paused status',
    );
    const whilePaused = await sim.control.emit(4, { taskIds: [1, 2], latenessMs: 0 });
    red.inject('control', { action: 'resume' });
    await waitUntil(() => sim.control.stats().openSockets === 1, 10_000, 'listening again');
    const [sentinel] = await sim.control.emit(1, { taskIds: [1], latenessMs: 0 });
    const got = await red.waitFor('out', (list) => list.some((msg) => idOf(msg) === sentinel?.id));
    expect(got.map(idOf).sort((a, b) => a - b)).toEqual(
      [...before, ...whilePaused, sentinel].map((event) => event?.id as number).sort((a, b) => a - b),
    );
    expect(red.messages('errors')).toEqual([]);
  });

  it('subscribe changes the tasks (live, shown in the status) and the filters; bad values change nothing', async () => {
    await deployed();
    const task3 = sim.world.tasks.find((task) => task.id === 3);
    expect(task3).toBeDefined();
    red.inject('control', { action: 'subscribe', tasks: [3] });
    await waitUntil(
      () => statusTexts(red.messages('status')).some((text) => text.includes('tasks 3')),
      10_000,
      'the new tasks in the status',
    );
    const [on1] = await sim.control.emit(1, { taskIds: [1], latenessMs: 0 });
    const [on3] = await sim.control.emit(1, { taskIds: [3], latenessMs: 0 });
    await red.waitFor('out', (list) => list.some((msg) => idOf(msg) === on3?.id));
    expect(red.messages('out').map(idOf)).not.toContain(on1?.id);

    // Filters only: the same tasks, events of other names are left out.
    // A name task 3 publishes (the one its last event had).
    const names = [on3?.event_name as string];
    red.inject('control', { action: 'subscribe', eventNames: [names[0]] });
    await waitUntil(() => sim.control.stats().openSockets === 1, 10_000, 'listening again');
    red.clear();
    const sent = await sim.control.emit(20, { taskIds: [3], latenessMs: 0 });
    const wanted = sent.filter((event) => event.event_name === names[0]);
    expect(wanted.length).toBeGreaterThan(0);
    await red.waitFor('out', (list) => list.length >= wanted.length);
    // Positive evidence nothing else came: a sentinel of the wanted name after them.
    const [sentinel] = (await sim.control.emit(30, { taskIds: [3], latenessMs: 0 })).filter(
      (event) => event.event_name === names[0],
    );
    await red.waitFor('out', (list) => list.some((msg) => idOf(msg) === sentinel?.id));
    expect(
      red.messages('out').every((msg) => (msg.payload as { eventName: string }).eventName === names[0]),
    ).toBe(true);

    red.inject('control', { action: 'subscribe', tasks: 'seven' });
    red.inject('control', { action: 'jump' });
    red.inject('control', { action: 'subscribe', minConfidence: 3 });
    const errors = await red.waitFor('errors', (list) => list.length === 3);
    const messages = errors.map((msg) => String((msg.error as { message?: string }).message));
    expect(messages[0]).toMatch(/msg\.tasks/);
    expect(messages[0]).toContain('seven');
    expect(messages[1]).toMatch(/msg\.action.*"jump".*"pause", "resume" or "subscribe"/);
    expect(messages[2]).toMatch(/msg\.minConfidence/);
  });
});
