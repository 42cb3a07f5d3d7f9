import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { INodeParameters } from 'n8n-workflow';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  type ActiveTrigger,
  activateTrigger,
  createEngine,
  type Engine,
  makeNode,
  packageName,
  runNode,
} from './harness/n8n-engine.mts';
import { eventually, tokenCredential } from './harness/simulator-credentials.mts';

const taskTriggerType = `${packageName}.observationTaskTrigger`;

let sim: Simulator;
let engine: Engine;
/** The sentinel trigger's own service: its checks never count as requests to `sim`. */
let sentinelSim: Simulator;
let sentinelEngine: Engine;
const active: ActiveTrigger[] = [];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 21 });
  engine = await createEngine(tokenCredential(sim));
  sentinelSim = await startSimulator({ port: 0, seed: 22, historySize: 0 });
  sentinelEngine = await createEngine(tokenCredential(sentinelSim));
});
afterEach(async () => {
  for (const trigger of active.splice(0)) await trigger.close();
  sim.control.reset();
  sentinelSim.control.reset();
});
afterAll(async () => {
  await sim.stop();
  await sentinelSim.stop();
});

const requests = () => sim.control.stats().requests;

/**
 * Activates the trigger and returns once its baseline is set: the watch lists the tasks with one
 * request per check, so a second request means the first check (the baseline) has finished.
 */
async function activate(parameters: INodeParameters, credentialEngine = engine): Promise<ActiveTrigger> {
  const before = requests();
  const trigger = await activateTrigger(
    credentialEngine,
    makeNode(taskTriggerType, { pollIntervalSeconds: 1, ...parameters }, 'Observation Task Trigger'),
  );
  active.push(trigger);
  await eventually(() => requests() >= before + 2);
  return trigger;
}

function taskWith(predicate: (status: string) => boolean): number {
  const task = sim.world.tasks.find((candidate) => predicate(candidate.status));
  if (!task) throw new Error('no seeded task fits');
  return task.id;
}

/**
 * A sentinel: a trigger on a second simulator, checking every second like the triggers under
 * test. Resolves (closed again) once it has emitted two changes made one after the other: the
 * first comes from a check at least one interval after its baseline, the second from one an
 * interval after that, so a 1 s poller has had two intervals since the sentinel started.
 */
async function sentinelChecked(): Promise<void> {
  const task = sentinelSim.world.tasks[0];
  if (!task) throw new Error('the sentinel simulator has no task');
  const before = sentinelSim.control.stats().requests;
  const sentinel = await activateTrigger(
    sentinelEngine,
    makeNode(taskTriggerType, { pollIntervalSeconds: 1, tasks: 'ids', taskIds: String(task.id) }, 'Sentinel'),
  );
  try {
    // Its baseline is read: the second request is sent only after the first page's answer.
    await eventually(() => sentinelSim.control.stats().requests >= before + 2);
    let status = task.status;
    for (let change = 1; change <= 2; change++) {
      status = status === 'operating, slow' ? 'operating, normal' : 'operating, slow';
      sentinelSim.control.setTaskStatus(task.id, status);
      await sentinel.waitForItems(change);
    }
  } finally {
    await sentinel.close();
  }
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('production (activated workflow)', () => {
  test('a status change becomes exactly one flat item with the parsed status; close leaves no timer', async () => {
    const timersBefore = timers();
    const id = taskWith((status) => status === 'operating, normal');
    const trigger = await activate({ tasks: 'ids', taskIds: String(id) });
    sim.control.setTaskStatus(id, 'operating, disconnected');
    const [item] = await trigger.waitForItems(1);
    expect(item?.json).toMatchObject({
      type: 'changed',
      taskId: id,
      status: 'operating, disconnected',
      category: 'operating',
      state: 'disconnected',
      previousStatus: 'operating, normal',
      previousCategory: 'operating',
      previousState: 'normal',
    });
    expect(typeof item?.json.taskName).toBe('string');
    expect(Number.isNaN(Date.parse(String(item?.json.at)))).toBe(false);
    expect((item?.json.task as { id?: number } | undefined)?.id).toBe(id);
    // The task in the action node's shape (issue 34): camelCase, scheduler an object.
    const listed = sim.world.tasks.find((task) => task.id === id);
    expect(item?.json.task).toMatchObject({
      locationId: listed?.location_id,
      scheduler: { type: listed?.scheduler.type },
      eventTypeIds: expect.any(Array),
    });
    expect(Object.keys(item?.json.task ?? {}).filter((key) => key.includes('_'))).toEqual([]);
    // Two more checks see nothing new: still one item, in one execution.
    const seen = requests();
    await eventually(() => requests() >= seen + 2);
    expect(trigger.emitted).toHaveLength(1);
    expect(trigger.errors).toEqual([]);

    await trigger.close();
    await trigger.close();
    const afterClose = requests();
    // A closed trigger would poll again within a second: the sentinel, started after the close,
    // checked for two seconds, and the simulator saw no request.
    await sentinelChecked();
    expect(requests()).toBe(afterClose);
    expect(timers()).toBeLessThanOrEqual(timersBefore);
  });

  test('only the selected tasks are watched', async () => {
    const [a, b] = sim.world.tasks.map((task) => task.id);
    if (a === undefined || b === undefined) throw new Error('too few tasks');
    const trigger = await activate({ tasks: 'ids', taskIds: String(a) });
    sim.control.setTaskStatus(b, 'non-operating, paused');
    sim.control.setTaskStatus(a, 'non-operating, terminated');
    const [item] = await trigger.waitForItems(1);
    expect(item?.json.taskId).toBe(a);
    const seen = requests();
    await eventually(() => requests() >= seen + 1);
    expect(trigger.emitted.flatMap((batch) => batch[0] ?? [])).toHaveLength(1);
  });

  test('new status category filter: only transitions into non-operating or unknown', async () => {
    const operating = taskWith((status) => status === 'operating, normal');
    const other = taskWith((status) => status === 'operating, slow');
    const trigger = await activate({
      tasks: 'all',
      filters: { newCategories: ['non-operating', 'unknown'] },
    });
    sim.control.setTaskStatus(operating, 'operating, disconnected');
    sim.control.setTaskStatus(other, 'melting');
    const [item] = await trigger.waitForItems(1);
    expect(item?.json).toMatchObject({ taskId: other, status: 'melting', category: 'unknown' });
    sim.control.setTaskStatus(operating, 'non-operating, paused');
    const items = await trigger.waitForItems(2);
    expect(items[1]?.json).toMatchObject({ taskId: operating, category: 'non-operating', state: 'paused' });
  });

  test('trigger on added and removed tasks only when asked', async () => {
    const statusOnly = await activate({ tasks: 'all' });
    const lifecycle = await activate({ tasks: 'all', changes: ['added', 'removed'] });
    const added = sim.control.addTask({ name: 'Loading dock' });
    const [addedItem] = await lifecycle.waitForItems(1);
    expect(addedItem?.json).toMatchObject({ type: 'added', taskId: added.id, taskName: 'Loading dock' });
    expect(addedItem?.json.previousStatus).toBeNull();
    sim.control.removeTask(added.id);
    const items = await lifecycle.waitForItems(2);
    expect(items[1]?.json).toMatchObject({ type: 'removed', taskId: added.id, status: null });
    expect(statusOnly.emitted).toEqual([]);
  });

  test('an out-of-range poll interval is refused, naming the field and the range', async () => {
    const node = makeNode(
      taskTriggerType,
      { pollIntervalSeconds: 0.5, tasks: 'all' },
      'Observation Task Trigger',
    );
    await expect(activateTrigger(engine, node)).rejects.toThrow(
      /Poll Interval \(Seconds\): got 0\.5; expected a number of seconds from 1 to 86400/,
    );
  });

  test('a refused token surfaces as a trigger error, without the token', async () => {
    const badEngine = await createEngine(tokenCredential(sim, { accessToken: 'wrong-token-456' }));
    const trigger = await activateTrigger(
      badEngine,
      makeNode(taskTriggerType, { pollIntervalSeconds: 1, tasks: 'all' }, 'Observation Task Trigger'),
    );
    active.push(trigger);
    const error = await trigger.waitForError();
    expect(error.name).toBe('NodeApiError');
    expect(error.message).not.toContain('wrong-token-456');
  });
});

describe('manual mode ("Test this trigger")', () => {
  test('emits the current status of each selected task at once, then stops polling', async () => {
    const [a, b] = sim.world.tasks.map((task) => task.id);
    if (a === undefined || b === undefined) throw new Error('too few tasks');
    sim.control.setTaskStatus(b, 'operating, disconnected');
    const node = makeNode(
      taskTriggerType,
      { pollIntervalSeconds: 1, tasks: 'ids', taskIds: `${a}, ${b}` },
      'Observation Task Trigger',
    );
    const { items, error } = await runNode(engine, node, [{ json: {} }], 'manual');
    expect(error).toBeUndefined();
    expect(items.map((item) => item.json.taskId)).toEqual([a, b]);
    expect(items[1]?.json).toMatchObject({
      type: 'initial',
      status: 'operating, disconnected',
      category: 'operating',
      state: 'disconnected',
      previousStatus: null,
    });
    const after = requests();
    // The test run's watch would poll again within a second: the sentinel, started after the
    // run ended, checked for two seconds, and the simulator saw no request.
    await sentinelChecked();
    expect(requests()).toBe(after);
  });

  test('tasks that do not exist fail the test run with a readable error', async () => {
    const node = makeNode(
      taskTriggerType,
      { pollIntervalSeconds: 5, tasks: 'ids', taskIds: '99999' },
      'Observation Task Trigger',
    );
    const { error } = await runNode(engine, node, [{ json: {} }], 'manual');
    expect(error?.message).toMatch(/None of the selected tasks exists/);
  });
});
