import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  actionType,
  createEngine,
  type Engine,
  listSearch,
  loadOptions,
  makeNode,
  triggerType,
} from './harness/n8n-engine.mts';
import { tokenCredential } from './harness/simulator-credentials.mts';

let sim: Simulator;
let engine: Engine;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 9, historySize: 10 });
  engine = await createEngine(tokenCredential(sim));
});
afterAll(async () => {
  await sim.stop();
});

const actionNode = () => makeNode(actionType, { resource: 'task', operation: 'get' });

test('task list search shows every task, and filters by name or id', async () => {
  const all = await listSearch(engine, actionNode(), 'searchTasks');
  expect(all.results.map((result) => result.value).sort()).toEqual(
    sim.world.tasks.map((t) => String(t.id)).sort(),
  );
  const task = sim.world.tasks[3];
  if (!task) throw new Error('too few tasks');
  const byName = await listSearch(engine, actionNode(), 'searchTasks', task.name.slice(0, 12).toUpperCase());
  expect(byName.results.map((result) => result.value)).toContain(String(task.id));
  expect(
    byName.results.every((result) =>
      result.name.toLowerCase().includes(task.name.slice(0, 12).toLowerCase()),
    ),
  ).toBe(true);
  const byId = await listSearch(engine, actionNode(), 'searchTasks', String(task.id));
  expect(byId.results.map((result) => result.value)).toContain(String(task.id));
});

test('task list search pages through a long list (n8n asks for the next page as the user scrolls)', async () => {
  const added = Array.from({ length: 230 }, (_, i) => sim.control.addTask({ name: `Dock camera ${i}` }).id);
  try {
    const everyId = sim.world.tasks.map((task) => String(task.id)).sort();
    const readAll = async (filter?: string) => {
      const values: string[] = [];
      const sizes: number[] = [];
      let token: string | undefined;
      do {
        const page = await listSearch(engine, actionNode(), 'searchTasks', filter, token);
        values.push(...page.results.map((result) => String(result.value)));
        sizes.push(page.results.length);
        token = page.paginationToken as string | undefined;
      } while (token !== undefined && sizes.length < 20);
      return { values, sizes };
    };
    const all = await readAll();
    expect(all.values.slice().sort()).toEqual(everyId);
    expect(all.sizes.slice(0, 2)).toEqual([100, 100]);
    // "Dock camera 1", "…10"-"…19", "…100"-"…199": 111 matches, the last page after the first 100.
    const filtered = await readAll('dock camera 1');
    const expected = added.filter((_, i) => String(i).startsWith('1')).map(String);
    expect(filtered.values.slice().sort()).toEqual(expected.sort());
    expect(filtered.sizes).toEqual([100, 11]);
    // The triggers' task picker (an options list, which has no pages) lists every task.
    const options = await loadOptions(engine, makeNode(triggerType, { tasks: 'list' }), 'getTasks');
    expect(options).toHaveLength(everyId.length);
  } finally {
    sim.control.reset();
  }
});

test('location list search', async () => {
  const location = sim.world.locations[0];
  if (!location) throw new Error('no locations');
  const found = await listSearch(engine, actionNode(), 'searchLocations', location.name);
  expect(found.results[0]).toEqual({
    name: `${location.name} (#${location.id})`,
    value: String(location.id),
  });
});

test('event types come from the service (by name for the trigger, by id for the action node)', async () => {
  const used = new Set(sim.world.tasks.flatMap((task) => task.events.map((event) => event.id)));
  const expected = sim.world.eventTypes.filter((type) => used.has(type.id));
  const names = await loadOptions(engine, makeNode(triggerType, { tasks: 'all' }), 'getEventNames');
  expect(names.map((option) => option.value).sort()).toEqual(expected.map((type) => type.name).sort());
  const ids = await loadOptions(engine, actionNode(), 'getEventTypes');
  expect(ids.map((option) => option.value).sort()).toEqual(expected.map((type) => type.id).sort());
});

test('the trigger task picker lists tasks by id', async () => {
  const options = await loadOptions(engine, makeNode(triggerType, { tasks: 'list' }), 'getTasks');
  expect(options.map((option) => option.value).sort((a, b) => Number(a) - Number(b))).toEqual(
    sim.world.tasks.map((task) => task.id).sort((a, b) => a - b),
  );
});

test('an editor call with a bad token fails with an n8n error', async () => {
  const bad = await createEngine(tokenCredential(sim, { accessToken: 'bad-token-for-list' }));
  await expect(listSearch(bad, actionNode(), 'searchTasks')).rejects.toMatchObject({ name: 'NodeApiError' });
});
