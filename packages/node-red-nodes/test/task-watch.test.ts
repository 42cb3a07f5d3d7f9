import type { TaskWatchEvent } from '@observation-service/core';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, serverNode, sink, source, statusNode, tab, taskWatchNode } from './harness/flows.js';
import { type FlowNode, NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

type Msg = Record<string, unknown>;
interface StatusMsg {
  status: { fill?: string; shape?: string; text?: string; source: { id: string } };
}

function statusesOf(red: NodeRedHarness, nodeId: string) {
  return red
    .messages('status')
    .map((msg) => (msg as unknown as StatusMsg).status)
    .filter((status) => status.source.id === nodeId);
}

function errorMessage(msg: Msg | undefined): string {
  return String((msg?.error as { message?: string } | undefined)?.message);
}

function timers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

describe(`observation task-watch node (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 17 });
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

  async function deploy(nodes: FlowNode[]) {
    await red.deploy([
      tab(),
      serverNode(sim),
      sink('out'),
      sink('status'),
      sink('errors'),
      statusNode('status-node', 'status'),
      catchNode('catch-node', 'errors'),
      ...nodes,
    ]);
  }
  /** Waits for the first successful check (green status). */
  async function watching(id: string) {
    await red.waitFor('status', () => statusesOf(red, id).some((status) => status.fill === 'green'));
  }

  it('sends one message per status change with the parsed category and state', async () => {
    const task = sim.world.tasks.find((candidate) => candidate.status === 'operating, normal');
    if (!task) throw new Error('the simulator world has no task operating normally');
    await deploy([taskWatchNode('watch', ['out'])]);
    await watching('watch');
    expect(statusesOf(red, 'watch').at(-1)).toMatchObject({
      fill: 'green',
      shape: 'dot',
      text: `${sim.world.tasks.length} tasks`,
    });
    expect(red.messages('out')).toEqual([]); // the first check only learns the statuses

    sim.control.setTaskStatus(task.id, 'operating, disconnected');
    const [msg] = await red.waitFor('out', (list) => list.length >= 1);
    const event = msg?.payload as TaskWatchEvent;
    expect(event).toMatchObject({
      type: 'changed',
      taskId: task.id,
      taskName: task.name,
      previous: { raw: 'operating, normal', category: 'operating', state: 'normal' },
      current: { raw: 'operating, disconnected', category: 'operating', state: 'disconnected' },
    });
    expect(msg?.topic).toBe(`${task.name}: operating, normal → operating, disconnected`);
    expect(msg).toMatchObject({ taskId: task.id, changeType: 'changed' });
    await red.waitFor('status', () =>
      statusesOf(red, 'watch').some((status) =>
        status.text?.includes(`${task.name}: operating, disconnected at`),
      ),
    );

    // The next check (1 s later) finds nothing new: still exactly one message.
    await sleep(1_300);
    expect(red.messages('out')).toHaveLength(1);
    expect(red.messages('errors')).toEqual([]);
  });

  it('sends each watched task once at start, and watches only the listed ids', async () => {
    const [first, second, third] = sim.world.tasks;
    if (!first || !second || !third) throw new Error('the simulator world needs three tasks');
    // Checks come from the input ("check now"), not the hour-long interval.
    await deploy([
      source('in', ['watch']),
      taskWatchNode('watch', ['out'], {
        intervalSeconds: 3600,
        taskMode: 'ids',
        taskIds: `${first.id}, ${second.id}`,
        emitInitial: true,
      }),
    ]);
    const initial = await red.waitFor('out', (list) => list.length >= 2);
    expect(initial.map((msg) => (msg.payload as TaskWatchEvent).type)).toEqual(['initial', 'initial']);
    expect(initial.map((msg) => msg.taskId)).toEqual([first.id, second.id]);
    expect(initial[0]?.topic).toBe(`${first.name}: ${first.status}`);

    sim.control.setTaskStatus(third.id, 'non-operating, paused'); // not watched
    sim.control.setTaskStatus(second.id, 'non-operating, terminated');
    red.inject('in', {});
    await red.waitFor('out', (list) => list.length >= 3);
    await sleep(200); // anything else of that check would have arrived by now
    const changes = red.messages('out').slice(2);
    expect(changes.map((msg) => msg.taskId)).toEqual([second.id]);
    expect((changes[0]?.payload as TaskWatchEvent | undefined)?.current).toMatchObject({
      category: 'non-operating',
      state: 'terminated',
    });
  });

  it('reports added and removed tasks', async () => {
    await deploy([source('in', ['watch']), taskWatchNode('watch', ['out'], { intervalSeconds: 3600 })]);
    await watching('watch');
    const added = sim.control.addTask({ name: 'New Gate', status: 'operating, normal' });
    red.inject('in', {});
    const [addedMsg] = await red.waitFor('out', (list) => list.length >= 1);
    expect(addedMsg).toMatchObject({
      changeType: 'added',
      taskId: added.id,
      topic: 'New Gate: (new) → operating, normal',
    });
    sim.control.removeTask(added.id);
    red.inject('in', {});
    const messages = await red.waitFor('out', (list) => list.length >= 2);
    expect(messages[1]).toMatchObject({
      changeType: 'removed',
      topic: 'New Gate: operating, normal → (removed)',
    });
  });

  it('checks at once when a message arrives', async () => {
    const task = sim.world.tasks[4];
    if (!task) throw new Error('no task');
    await deploy([source('in', ['watch']), taskWatchNode('watch', ['out'], { intervalSeconds: 3600 })]);
    await watching('watch');
    sim.control.setTaskStatus(task.id, 'operating, slow');
    await sleep(300);
    expect(red.messages('out')).toEqual([]); // the next timed check is an hour away
    red.inject('in', { payload: 'check' });
    const [msg] = await red.waitFor('out', (list) => list.length >= 1, 5_000);
    expect(msg).toMatchObject({ taskId: task.id, changeType: 'changed' });
    expect((msg?.payload as TaskWatchEvent | undefined)?.current?.raw).toBe('operating, slow');
  });

  it('sends a failed check to Catch, shows it in red, and recovers', async () => {
    await deploy([source('in', ['watch']), taskWatchNode('watch', ['out'], { intervalSeconds: 3600 })]);
    await watching('watch');
    sim.control.failNext(30, 503);
    red.inject('in', {});
    const [caught] = await red.waitFor('errors', (list) => list.length >= 1, 10_000);
    expect(errorMessage(caught)).toMatch(/503/);
    expect(errorMessage(caught)).not.toContain(sim.token);
    expect(caught?.error).toMatchObject({ source: { id: 'watch', type: 'observation-task-watch' } });
    expect(caught?.payload).toMatchObject({ code: 'HTTP_ERROR' });
    await red.waitFor('status', () =>
      statusesOf(red, 'watch').some(
        (status) => status.fill === 'red' && /^check failed/.test(status.text ?? ''),
      ),
    );
    sim.control.reset();
    red.clear();
    red.inject('in', {});
    await watching('watch');
  });

  it('refuses a bad interval, naming the field, and polls nothing', async () => {
    const before = sim.control.stats().requests;
    await deploy([taskWatchNode('watch', ['out'], { intervalSeconds: '0.2' })]);
    const [caught] = await red.waitFor('errors', (list) => list.length >= 1);
    expect(errorMessage(caught)).toContain('intervalSeconds');
    expect(errorMessage(caught)).toContain('0.2');
    expect(statusesOf(red, 'watch').at(-1)).toMatchObject({ fill: 'red', text: 'error' });
    await sleep(300);
    expect(sim.control.stats().requests).toBe(before);
  });

  it('closes on redeploy: no more checks, no timer left behind', async () => {
    await deploy([]);
    await sleep(100);
    const baseline = timers();
    for (let round = 0; round < 2; round++) {
      await deploy([taskWatchNode('watch', ['out'], { name: `round ${round}` })]);
      await watching('watch');
      red.clear();
    }
    await deploy([]);
    const after = sim.control.stats().requests;
    await sleep(1_500); // more than one interval of the removed watch
    expect(sim.control.stats().requests).toBe(after);
    await waitUntil(() => timers() <= baseline, 2_000, `timers back to ${baseline}`);
  });
});
