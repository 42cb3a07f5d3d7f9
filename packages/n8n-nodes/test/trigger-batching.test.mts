import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  type ActiveTrigger,
  activateTrigger,
  createEngine,
  type Engine,
  makeNode,
  runNode,
  triggerType,
} from './harness/n8n-engine.mts';
import { eventually, tokenCredential } from './harness/simulator-credentials.mts';
import { storedIds } from './harness/stored-ids.mts';

// Batched executions in n8n's real engine: one execution (one emit) per batch of events.

let sim: Simulator;
let engine: Engine;
const active: ActiveTrigger[] = [];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 33, historySize: 0 });
  engine = await createEngine(tokenCredential(sim));
});
afterEach(async () => {
  for (const trigger of active.splice(0)) await trigger.close();
  await eventually(() => sim.control.stats().openSockets === 0);
});
afterAll(async () => {
  await sim.stop();
});

async function activate(parameters: INodeParameters, staticData: IDataObject = {}) {
  const trigger = await activateTrigger(
    engine,
    makeNode(triggerType, parameters, 'Observation Trigger'),
    staticData,
  );
  active.push(trigger);
  return trigger;
}

async function connected(): Promise<void> {
  await eventually(() => sim.control.stats().openSockets >= 1);
}

const idsOf = (items: INodeExecutionData[]) => items.map((item) => item.json.id as number);
const batchesOf = (trigger: ActiveTrigger) => trigger.emitted.map((batch) => idsOf(batch[0] ?? []));

describe('batched executions', () => {
  test('a batch fills by size: one execution per N events, items in event order', async () => {
    const trigger = await activate({ tasks: 'all', options: { batchSize: 5, batchWaitMs: 60_000 } });
    await connected();
    const sent = await sim.control.emit(10, { latenessMs: 0 });
    await trigger.waitForItems(10);
    const ids = sent.map((event) => event.id);
    expect(batchesOf(trigger)).toEqual([ids.slice(0, 5), ids.slice(5)]);
  });

  test('a partial batch goes out when the wait is up', async () => {
    const trigger = await activate({ tasks: 'all', options: { batchSize: 100, batchWaitMs: 300 } });
    await connected();
    const sent = await sim.control.emit(3, { latenessMs: 0 });
    await trigger.waitForItems(3);
    expect(batchesOf(trigger)).toEqual([sent.map((event) => event.id)]);
    // The next event starts a batch of its own.
    const [next] = await sim.control.emit(1, { latenessMs: 0 });
    await trigger.waitForItems(4);
    expect(batchesOf(trigger)).toEqual([sent.map((event) => event.id), [next?.id]]);
  });

  test('filters apply before batching: batches hold only matching events, full ones by size', async () => {
    const type = sim.world.eventTypes[0];
    if (!type) throw new Error('no event types');
    const trigger = await activate({
      tasks: 'all',
      filters: { eventNames: [type.name] },
      options: { batchSize: 3, batchWaitMs: 60_000 },
    });
    await connected();
    const matching: number[] = [];
    while (matching.length < 6) {
      for (const event of await sim.control.emit(10, { latenessMs: 0 })) {
        if (event.event_name === type.name) matching.push(event.id);
      }
    }
    const full = matching.slice(0, matching.length - (matching.length % 3));
    await trigger.waitForItems(full.length);
    expect(batchesOf(trigger)).toEqual(
      Array.from({ length: full.length / 3 }, (_, i) => full.slice(i * 3, i * 3 + 3)),
    );
  });

  test('attach snapshot still works per item in a batch', async () => {
    const trigger = await activate({
      tasks: 'all',
      options: { batchSize: 2, batchWaitMs: 60_000, attachSnapshot: true, binaryPropertyName: 'snapshot' },
    });
    await connected();
    const sent = await sim.control.emit(2, { latenessMs: 0 });
    const items = await trigger.waitForItems(2);
    expect(trigger.emitted).toHaveLength(1);
    expect(idsOf(items)).toEqual(sent.map((event) => event.id));
    for (const item of items) expect(item.binary?.snapshot?.mimeType).toMatch(/^image\//);
  });

  test('across a forced reconnect with batching on: every event once, nothing lost or repeated', async () => {
    const trigger = await activate({ tasks: 'all', options: { batchSize: 10, batchWaitMs: 200 } });
    await connected();
    const sent = [...(await sim.control.emit(25, { latenessMs: 0 }))];
    const before = sim.control.stats().connectionsTotal;
    sim.control.dropConnections();
    // Published while the socket is down: only history has these; core's catch-up reads them.
    sent.push(...(await sim.control.emit(25, { latenessMs: 0 })));
    await eventually(
      () => sim.control.stats().connectionsTotal > before && sim.control.stats().openSockets === 1,
      15_000,
    );
    sent.push(...(await sim.control.emit(25, { latenessMs: 0 })));
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    const items = await trigger.waitForItemsWhere((list) =>
      list.some((item) => item.json.id === sentinel?.id),
    );
    const ids = idsOf(items);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual([...sent, sentinel].map((event) => event?.id));
    expect(trigger.emitted.every((batch) => (batch[0]?.length ?? 0) <= 10)).toBe(true);
    expect(trigger.errors).toEqual([]);
  });

  test('the position covers only emitted batches: a restart re-reads the dropped partial batch, repeats nothing', async () => {
    const options = { catchUp: true, maxLookBackMinutes: 60, batchSize: 4, batchWaitMs: 60_000 };
    const first = await activate({ tasks: 'all', options });
    await connected();
    const sent = await sim.control.emit(10, { latenessMs: 0 });
    const ids = sent.map((event) => event.id);
    await first.waitForItems(8);
    await eventually(() => ids.slice(0, 8).every((id) => storedIds(first.staticData).includes(id)));
    // Two events wait in an open batch (the wait is a minute): counted by the position? No.
    expect(storedIds(first.staticData).filter((id) => ids.slice(8).includes(id))).toEqual([]);
    await first.close();
    await eventually(() => sim.control.stats().openSockets === 0);
    expect(batchesOf(first)).toEqual([ids.slice(0, 4), ids.slice(4, 8)]);
    const saved = JSON.parse(JSON.stringify(first.staticData)) as IDataObject;
    expect(storedIds(saved).filter((id) => ids.slice(8).includes(id))).toEqual([]);

    const missed = await sim.control.emit(3, { latenessMs: 0 });
    const second = await activate({ tasks: 'all', options: { ...options, batchWaitMs: 200 } }, saved);
    await connected();
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    const items = await second.waitForItemsWhere((list) =>
      list.some((item) => item.json.id === sentinel?.id),
    );
    expect(idsOf(items)).toEqual([...ids.slice(8), ...missed.map((event) => event.id), sentinel?.id]);
  });

  test('Batch Size and Batch Wait are checked: the message names the field, the value and the range', async () => {
    const node = (options: INodeParameters) =>
      makeNode(triggerType, { tasks: 'all', options }, 'Observation Trigger');
    await expect(activateTrigger(engine, node({ batchSize: 0 }))).rejects.toThrow(
      /Batch Size.*got 0.*whole number from 1 to 1000/,
    );
    await expect(activateTrigger(engine, node({ batchSize: 2.5 }))).rejects.toThrow(/Batch Size.*got 2\.5/);
    await expect(activateTrigger(engine, node({ batchSize: 2, batchWaitMs: 0 }))).rejects.toThrow(
      /Batch Wait \(Milliseconds\).*got 0.*whole number from 1 to 600000/,
    );
  });

  test('the filters and the catch-up options typed wrong (an expression) name the field by its label', async () => {
    const node = (parameters: INodeParameters) =>
      makeNode(triggerType, { tasks: 'all', ...parameters }, 'Observation Trigger');
    const refused = async (parameters: INodeParameters) => {
      try {
        // Closed after the test like every other: an activation here is the failure shown below.
        active.push(await activateTrigger(engine, node(parameters)));
      } catch (error) {
        return String((error as Error).message);
      }
      return 'activated';
    };
    const cases: Array<[INodeParameters, RegExp]> = [
      [{ filters: { minConfidence: 1.5 } }, /Invalid Minimum Confidence: got number 1\.5/],
      [{ filters: { objectNames: 7 } }, /Invalid Object Names: got number 7/],
      [{ options: { allowedLatenessSeconds: 7200 } }, /Late Events \(Seconds\).*got 7200.*from 0 to 3600/],
      [
        { options: { catchUp: true, maxLookBackMinutes: 5000 } },
        /Max Catch-Up \(Minutes\).*got 5000.*from 1 to 1440/,
      ],
    ];
    for (const [parameters, message] of cases) {
      const shown = await refused(parameters);
      expect(shown).toMatch(message);
      expect(shown).not.toMatch(/\b(minConfidence|objectNames|allowedLatenessMs|maxLookBackMs)\b/);
    }
  });

  test('manual mode ("Listen for test event") still emits one event, whatever the batch size', async () => {
    // A task created now has no history: the first live event answers.
    const fresh = sim.control.addTask({ name: 'Gate, batching test' });
    const node = makeNode(
      triggerType,
      { tasks: 'ids', taskIds: String(fresh.id), options: { batchSize: 10, batchWaitMs: 60_000 } },
      'Observation Trigger',
    );
    const run = runNode(engine, node, [{ json: {} }], 'manual');
    await connected();
    const sent = await sim.control.emit(3, { taskIds: [fresh.id], latenessMs: 0 });
    const { items, error } = await run;
    expect(error).toBeUndefined();
    expect(idsOf(items)).toEqual([sent[0]?.id]);
    await eventually(() => sim.control.stats().openSockets === 0);
  });
});
