import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  actionType,
  activateTrigger,
  createEngine,
  type Engine,
  makeNode,
  runNode,
  testCredential,
  triggerType,
} from './harness/n8n-engine.mts';
import { eventually, tokenCredential } from './harness/simulator-credentials.mts';

// An older (basic) deployment: no service id, one realtime path per task, basic payloads.
let sim: Simulator;
let engine: Engine;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 17, form: 'basic', historySize: 60 });
  engine = await createEngine(tokenCredential(sim, { serviceId: '', form: 'auto' }));
});
afterAll(async () => {
  await sim.stop();
});

test('the credential test and reads work without a service id', async () => {
  expect((await testCredential(engine, tokenCredential(sim, { serviceId: '' }))).status).toBe('OK');
  const { items, error } = await runNode(
    engine,
    makeNode(actionType, { resource: 'event', operation: 'getMany', limit: 5 }),
  );
  expect(error).toBeUndefined();
  expect(items).toHaveLength(5);
  expect(items.every((item) => item.json.form === 'basic')).toBe(true);
});

test('the trigger follows the selected tasks on their basic realtime paths, as one subscription', async () => {
  const [a, b] = sim.world.tasks.map((task) => task.id);
  if (a === undefined || b === undefined) throw new Error('too few tasks');
  const trigger = await activateTrigger(
    engine,
    makeNode(triggerType, { tasks: 'ids', taskIds: `${a},${b}` }, 'Observation Trigger'),
  );
  try {
    // The basic form has one socket per task.
    await eventually(() => sim.control.stats().openSockets === 2);
    const seen = new Set<number>();
    for (let round = 0; seen.size < 2; round++) {
      if (round > 200) throw new Error(`events of both tasks did not arrive (saw ${[...seen].join(',')})`);
      await sim.control.emit(1, { taskIds: [round % 2 === 0 ? a : b] });
      await new Promise((resolve) => setTimeout(resolve, 30));
      for (const item of trigger.emitted.flatMap((batch) => batch[0] ?? []))
        seen.add(item.json.taskId as number);
    }
    expect([...seen].sort()).toEqual([a, b].sort());
    expect(trigger.errors).toEqual([]);
  } finally {
    await trigger.close();
  }
  await eventually(() => sim.control.stats().openSockets === 0);
});
