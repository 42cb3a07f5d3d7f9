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

/** A seeded status other than `status`, for a change that must be seen. */
function otherThan(status: string): string {
  return status === 'operating, slow' ? 'operating, normal' : 'operating, slow';
}

describe(`observation task-watch node (${nodeRedPackage})`, () => {
  let sim: Simulator;
  /** The sentinel watch's own service: its checks never count as requests to `sim`. */
  let sentinelSim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 17 });
    sentinelSim = await startSimulator({ seed: 18, historySize: 0 });
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
    await sentinelSim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    red.clear();
    sim.control.reset();
    sentinelSim.control.reset();
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

  /**
   * A sentinel: a watch on a second simulator, checking every second (the interval of the
   * default test watch), wired to its own sink. Its reports are the clock that proves time passed.
   */
  function sentinelNodes(): FlowNode[] {
    return [
      serverNode(sentinelSim, {}, 'sentinel-server'),
      sink('sentinel-out'),
      taskWatchNode('sentinel', ['sentinel-out'], { server: 'sentinel-server' }),
    ];
  }

  /**
   * Resolves once the sentinel watch has reported two changes made one after the other, each
   * after the previous report: the first comes from a check at least one interval after its
   * baseline (or after the moment this is called), the second from a check one interval after
   * the first. So two full seconds of checks have passed since the sentinel started, and at
   * least one since this was called.
   */
  async function sentinelChecked() {
    await watching('sentinel');
    const task = sentinelSim.world.tasks[0];
    if (!task) throw new Error('the sentinel simulator has no task');
    let status = task.status;
    for (let change = 1; change <= 2; change++) {
      const seen = red.messages('sentinel-out').length;
      status = otherThan(status);
      sentinelSim.control.setTaskStatus(task.id, status);
      await red.waitFor('sentinel-out', (list) => list.length > seen, 5_000);
    }
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
    // The task in the shape the query node's tasks gives it (issue 34: one shape everywhere).
    expect(event.task).toMatchObject({
      locationId: task.location_id,
      cameraId: task.camera_id,
      scheduler: { type: task.scheduler.type },
      statusParsed: { category: 'operating', state: 'disconnected' },
    });
    expect(Object.keys(event.task).filter((key) => key.includes('_'))).toEqual([]);
    await red.waitFor('status', () =>
      statusesOf(red, 'watch').some((status) =>
        status.text?.includes(`${task.name}: operating, disconnected at`),
      ),
    );

    // The next checks (1 s apart) find nothing new. The evidence: a later change (a task after
    // this one, so within one check it would come last) is the only message after the first.
    const later = sim.world.tasks.find(
      (candidate) => candidate.id > task.id && candidate.status !== 'non-operating, paused',
    );
    if (!later) throw new Error('the simulator world has no task after the changed one');
    sim.control.setTaskStatus(later.id, 'non-operating, paused');
    const messages = await red.waitFor('out', (list) => list.some((seen) => seen.taskId === later.id));
    expect(messages.map((seen) => [seen.taskId, seen.changeType])).toEqual([
      [task.id, 'changed'],
      [later.id, 'changed'],
    ]);
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
    // A message of that check out means the check has ended (its messages leave after it sent
    // them all). A later check with a sentinel change of a watched task: its message comes after
    // everything of the first check.
    sim.control.setTaskStatus(first.id, otherThan(first.status));
    red.inject('in', {});
    await red.waitFor('out', (list) => list.some((msg, index) => index >= 2 && msg.taskId === first.id));
    const changes = red.messages('out').slice(2);
    expect(changes.map((msg) => msg.taskId)).toEqual([second.id, first.id]);
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
    await deploy([
      source('in', ['watch']),
      taskWatchNode('watch', ['out'], { intervalSeconds: 3600 }),
      ...sentinelNodes(),
    ]);
    await watching('watch');
    sim.control.setTaskStatus(task.id, 'operating, slow');
    // The next timed check is an hour away: the sentinel (checking every second) checks at least
    // a second after the change, and nothing came out.
    await sentinelChecked();
    expect(red.messages('out')).toEqual([]);
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
    await deploy([taskWatchNode('watch', ['out'], { intervalSeconds: '0.2' }), ...sentinelNodes()]);
    const [caught] = await red.waitFor('errors', (list) => list.length >= 1);
    // Named by its label in the dialog, not the setting's name.
    expect(errorMessage(caught)).toContain('Invalid Check every: got "0.2"');
    expect(errorMessage(caught)).not.toContain('intervalSeconds');
    expect(statusesOf(red, 'watch').at(-1)).toMatchObject({
      fill: 'red',
      text: 'observation-task-watch.status.error',
    });
    // The sentinel, deployed with it, has checked for two seconds on its own simulator: the
    // refused watch sent nothing meanwhile.
    await sentinelChecked();
    expect(sim.control.stats().requests).toBe(before);
  });

  it('refuses bad task ids naming the field by its label', async () => {
    await deploy([taskWatchNode('watch', ['out'], { taskMode: 'ids', taskIds: '3, x' })]);
    const [caught] = await red.waitFor('errors', (list) => list.length >= 1);
    expect(errorMessage(caught)).toMatch(/^(ValidationError: )?Invalid Task ids\[1\]: got " ?x"/);
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
    // The redeploy that removes the watch starts the sentinel, which then checks for two seconds
    // (two intervals of the removed watch) on its own simulator: the removed watch sent nothing.
    await deploy(sentinelNodes());
    const after = sim.control.stats().requests;
    await sentinelChecked();
    expect(sim.control.stats().requests).toBe(after);
    await deploy([]);
    await waitUntil(() => timers() <= baseline, 2_000, `timers back to ${baseline}`);
  });
});
