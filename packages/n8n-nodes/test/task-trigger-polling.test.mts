import { createRequire } from 'node:module';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  createEngine,
  type Engine,
  makeNode,
  packageName,
  pollTrigger,
  runNode,
} from './harness/n8n-engine.mts';
import { loginCredential, tokenCredential } from './harness/simulator-credentials.mts';

// Version 2 of the Observation Task Trigger: an n8n polling trigger. n8n calls poll() once when it
// activates the workflow and then at the Poll Times; what the trigger keeps lives in the workflow's
// static data, which n8n saves in its database. pollTrigger() runs one production poll the way
// n8n's PollTriggerExecutor does; passing the static data of an earlier poll to a fresh engine
// plays n8n starting again.

const taskTriggerType = `${packageName}.observationTaskTrigger`;

// n8n's own Logger, from the DI container n8n-core hands a node its logger from (as in
// trigger-log.test.mts): what the trigger logs is read there, no n8n part is replaced.
const fromCore = createRequire(createRequire(import.meta.url).resolve('n8n-core'));
const { Container } = fromCore('@n8n/di') as { Container: { get<T>(type: unknown): T } };
const { Logger } = fromCore('@n8n/backend-common') as { Logger: unknown };
const n8nLogger = Container.get<{ info(message: string): void; warn(message: string): void }>(Logger);

let sim: Simulator;
let engine: Engine;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 21 });
  engine = await createEngine(tokenCredential(sim));
});
afterEach(() => {
  sim.control.reset();
  vi.restoreAllMocks();
});
afterAll(async () => {
  await sim.stop();
});

const node = (parameters: INodeParameters = {}) =>
  makeNode(taskTriggerType, { tasks: 'all', ...parameters }, 'Observation Task Trigger', 2);

function taskWith(status: string): number {
  const task = sim.world.tasks.find((candidate) => candidate.status === status);
  if (!task) throw new Error(`no seeded task is "${status}"`);
  return task.id;
}

/** The task statuses the trigger kept in static data (core's task watch state), by task id. */
function statusesIn(staticData: IDataObject): Record<string, { name: string; status: string }> {
  const nodeData = Object.values(staticData).find(
    (value): value is IDataObject => typeof value === 'object' && value !== null && 'taskWatch' in value,
  );
  const tasks = ((nodeData?.taskWatch as { tasks?: Array<{ id: number; name: string; status: string }> })
    ?.tasks ?? []) as Array<{ id: number; name: string; status: string }>;
  return Object.fromEntries(tasks.map((task) => [String(task.id), { name: task.name, status: task.status }]));
}

describe('production polls', () => {
  test('the first poll records every task and reports nothing; a change is one item at the next poll, once', async () => {
    const trigger = node();
    const first = await pollTrigger(engine, trigger);
    expect(first.items).toBeNull();
    const recorded = statusesIn(first.staticData);
    expect(Object.keys(recorded).sort()).toEqual(sim.world.tasks.map((task) => String(task.id)).sort());
    expect(JSON.stringify(recorded)).not.toContain('rtsp');

    const id = taskWith('operating, normal');
    sim.control.setTaskStatus(id, 'operating, disconnected');
    const second = await pollTrigger(engine, trigger, first.staticData);
    expect(second.items?.map((item) => item.json)).toEqual([
      expect.objectContaining({
        type: 'changed',
        taskId: id,
        status: 'operating, disconnected',
        category: 'operating',
        state: 'disconnected',
        previousStatus: 'operating, normal',
        previousCategory: 'operating',
        previousState: 'normal',
      }),
    ]);
    expect(statusesIn(second.staticData)[String(id)]?.status).toBe('operating, disconnected');
    const third = await pollTrigger(engine, trigger, second.staticData);
    expect(third.items).toBeNull();
  });

  test('an outage that began while n8n was stopped is reported at the first poll after the start', async () => {
    const trigger = node({ filters: { newCategories: ['non-operating', 'unknown'] } });
    const beforeStop = await pollTrigger(engine, trigger);
    // n8n is down: nothing polls. The task fails meanwhile.
    const id = taskWith('operating, normal');
    sim.control.setTaskStatus(id, 'non-operating, terminated');
    // A new process (fresh engine, nothing in memory) with the static data n8n saved.
    const restarted = await createEngine(tokenCredential(sim));
    const afterStart = await pollTrigger(restarted, trigger, beforeStop.staticData);
    expect(afterStart.items?.map((item) => [item.json.type, item.json.taskId, item.json.status])).toEqual([
      ['changed', id, 'non-operating, terminated'],
    ]);
  });

  test('several changes in one poll are one execution with an item each, in task id order; filters apply', async () => {
    const trigger = node({
      changes: ['changed', 'added', 'removed'],
      filters: { newCategories: ['non-operating', 'unknown'] },
    });
    const { staticData } = await pollTrigger(engine, trigger);
    const [a, b, c] = sim.world.tasks.map((task) => task.id);
    if (a === undefined || b === undefined || c === undefined) throw new Error('too few tasks');
    sim.control.setTaskStatus(c, 'melting');
    sim.control.setTaskStatus(a, 'non-operating, paused');
    sim.control.setTaskStatus(b, 'operating, slow'); // into operating: filtered out
    const added = sim.control.addTask({ name: 'Loading dock' }); // operating: filtered out
    sim.control.removeTask(added.id);
    const second = sim.control.addTask({ name: 'Gate', status: 'non-operating, paused' });
    const { items } = await pollTrigger(engine, trigger, staticData);
    expect(items?.map((item) => [item.json.type, item.json.taskId])).toEqual(
      [
        ['changed', a],
        ['changed', c],
        ['added', second.id],
      ].sort((x, y) => Number(x[1]) - Number(y[1])),
    );
  });

  test('only the selected tasks are reported, and selecting another task later reports no false "added"', async () => {
    const [a, b] = sim.world.tasks.map((task) => task.id);
    if (a === undefined || b === undefined) throw new Error('too few tasks');
    const onlyA = node({ tasks: 'ids', taskIds: String(a), changes: ['changed', 'added', 'removed'] });
    const first = await pollTrigger(engine, onlyA);
    sim.control.setTaskStatus(b, 'non-operating, paused');
    const second = await pollTrigger(engine, onlyA, first.staticData);
    expect(second.items).toBeNull();
    sim.control.setTaskStatus(a, 'non-operating, paused');
    const third = await pollTrigger(engine, onlyA, second.staticData);
    expect(third.items?.map((item) => item.json.taskId)).toEqual([a]);
    // The user adds task b to the selection: b is known, its status unchanged since the last poll.
    const both = node({ tasks: 'ids', taskIds: `${a}, ${b}`, changes: ['changed', 'added', 'removed'] });
    expect((await pollTrigger(engine, both, third.staticData)).items).toBeNull();
  });

  test('static data that is not a task watch state only sets a new baseline', async () => {
    const trigger = node();
    const { staticData } = await pollTrigger(engine, trigger);
    const nodeKey = Object.keys(staticData).find((key) => key.startsWith('node:')) ?? '';
    const broken = { ...staticData, [nodeKey]: { taskWatch: 'garbage' } };
    sim.control.setTaskStatus(taskWith('operating, normal'), 'operating, disconnected');
    const after = await pollTrigger(engine, trigger, broken);
    expect(after.items).toBeNull();
    expect(Object.keys(statusesIn(after.staticData)).length).toBe(sim.world.tasks.length);
  });

  test("another service's state is set aside with an info line, an unreadable one with a warning", async () => {
    const lines: Array<[string, string]> = [];
    vi.spyOn(n8nLogger, 'info').mockImplementation((message: string) => void lines.push(['info', message]));
    vi.spyOn(n8nLogger, 'warn').mockImplementation((message: string) => void lines.push(['warn', message]));
    const trigger = node();
    // The credential pointed at another service when this state was kept: the user changed it.
    const other = await startSimulator({ port: 0, seed: 23 });
    let elsewhere: IDataObject;
    try {
      elsewhere = (await pollTrigger(await createEngine(tokenCredential(other)), trigger)).staticData;
    } finally {
      await other.stop();
    }
    lines.length = 0;
    const after = await pollTrigger(engine, trigger, elsewhere);
    expect(after.items).toBeNull();
    const told = lines.filter(([, message]) => message.startsWith('Observation Task Trigger:'));
    expect(told.filter(([, message]) => /another service/.test(message))).toEqual([
      [
        'info',
        'Observation Task Trigger: the stored task watch state belongs to another service (the settings changed); starting from the current statuses',
      ],
    ]);
    // A state that cannot be read is a fault of the store: a warning.
    const nodeKey = Object.keys(after.staticData).find((key) => key.startsWith('node:')) ?? '';
    lines.length = 0;
    await pollTrigger(engine, trigger, { ...after.staticData, [nodeKey]: { taskWatch: { version: 99 } } });
    expect(
      lines.filter(([level, message]) => level === 'warn' && message.startsWith('Observation Task Trigger:')),
    ).toHaveLength(1);
  });

  test('a refused token fails the poll with an n8n error that does not contain it', async () => {
    const bad = await createEngine(tokenCredential(sim, { accessToken: 'wrong-token-456' }));
    const error = await pollTrigger(bad, node()).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('NodeApiError');
    expect((error as Error).message).not.toContain('wrong-token-456');
  });

  test('with email and password, every poll uses the token n8n keeps with the credential: one login', async () => {
    // Its own simulator: expiring tokens would also end the static token the other tests use.
    const own = await startSimulator({ port: 0, seed: 22 });
    try {
      const login = await createEngine(loginCredential(own));
      const trigger = node();
      let staticData: IDataObject = {};
      for (let i = 0; i < 4; i++) staticData = (await pollTrigger(login, trigger, staticData)).staticData;
      expect(own.control.stats().logins).toBe(1);
      expect(login.store.saves).toBe(1);
      const saved = login.store.data.sessionToken;
      expect(typeof saved).toBe('string');
      // The service stops accepting it (expired): the next poll renews it once, through n8n.
      own.control.expireTokens();
      const task = own.world.tasks.find((candidate) => candidate.status === 'operating, normal');
      if (!task) throw new Error('no operating task');
      own.control.setTaskStatus(task.id, 'operating, disconnected');
      const after = await pollTrigger(login, trigger, staticData);
      expect(after.items?.map((item) => item.json.taskId)).toEqual([task.id]);
      expect(own.control.stats().logins).toBe(2);
      expect(login.store.data.sessionToken).not.toBe(saved);
    } finally {
      await own.stop();
    }
  });
});

describe('"Fetch Test Event" (manual)', () => {
  test('gives the current status of each selected task at once, and stores nothing', async () => {
    const [a, b] = sim.world.tasks.map((task) => task.id);
    if (a === undefined || b === undefined) throw new Error('too few tasks');
    sim.control.setTaskStatus(b, 'operating, disconnected');
    const { items, error, run } = await runNode(
      engine,
      node({ tasks: 'ids', taskIds: `${b}, ${a}` }),
      [{ json: {} }],
      'manual',
    );
    expect(error).toBeUndefined();
    expect(items.map((item) => item.json.taskId)).toEqual([a, b].sort((x, y) => x - y));
    expect(items.find((item) => item.json.taskId === b)?.json).toMatchObject({
      type: 'initial',
      status: 'operating, disconnected',
      category: 'operating',
      state: 'disconnected',
      previousStatus: null,
    });
    expect(JSON.stringify(run.data)).not.toContain('taskWatch');
  });

  // The shipped task-outage example's settings: an outage alert must not read 12 outages in a test.
  const outage = {
    changes: ['changed', 'removed'],
    filters: { newCategories: ['non-operating', 'unknown'] },
  };

  test('with a category filter, only the selected tasks whose current status passes it, each saying it is no change', async () => {
    for (const task of sim.world.tasks) sim.control.setTaskStatus(task.id, 'operating, normal');
    const [down] = sim.world.tasks;
    if (down === undefined) throw new Error('no tasks');
    sim.control.setTaskStatus(down.id, 'non-operating, terminated');
    const { items, error } = await runNode(engine, node(outage), [{ json: {} }], 'manual');
    expect(error).toBeUndefined();
    expect(items.map((item) => item.json)).toEqual([
      expect.objectContaining({
        type: 'initial',
        taskId: down.id,
        status: 'non-operating, terminated',
        category: 'non-operating',
        previousStatus: null,
        note: expect.stringMatching(/^Current status at this test run, not a change/),
      }),
    ]);
  });

  test('when no selected task passes the filter now, one sample change the settings ask for, marked as a sample', async () => {
    for (const task of sim.world.tasks) sim.control.setTaskStatus(task.id, 'operating, normal');
    const { items, error } = await runNode(engine, node(outage), [{ json: {} }], 'manual');
    expect(error).toBeUndefined();
    const [first] = [...sim.world.tasks].sort((a, b) => a.id - b.id);
    expect(items.map((item) => item.json)).toEqual([
      expect.objectContaining({
        sample: true,
        type: 'changed',
        taskId: first?.id,
        status: 'non-operating, paused',
        category: 'non-operating',
        previousStatus: 'operating, normal',
        note: expect.stringMatching(
          /^A sample, not a real change \(none of the selected tasks is Non-Operating or Unknown now\)/,
        ),
      }),
    ]);
    // Only removals asked for: the sample is a removal of the task as it is now.
    const removals = await runNode(engine, node({ changes: ['removed'] }), [{ json: {} }], 'manual');
    expect(removals.items.map((item) => item.json)).toEqual([
      expect.objectContaining({
        sample: true,
        type: 'removed',
        status: null,
        previousStatus: 'operating, normal',
      }),
    ]);
  });

  test('tasks that do not exist fail with a readable error', async () => {
    const { error } = await runNode(
      engine,
      node({ tasks: 'ids', taskIds: '99999' }),
      [{ json: {} }],
      'manual',
    );
    expect(error?.message).toMatch(/None of the selected tasks exists/);
  });
});
