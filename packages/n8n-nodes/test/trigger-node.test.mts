import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  type ActivationOptions,
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

let sim: Simulator;
let engine: Engine;
const active: ActiveTrigger[] = [];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 21, historySize: 20 });
  engine = await createEngine(tokenCredential(sim));
});
afterEach(async () => {
  for (const trigger of active.splice(0)) await trigger.close();
  sim.control.setRate(0);
  await eventually(() => sim.control.stats().openSockets === 0);
});
afterAll(async () => {
  await sim.stop();
});

async function activate(
  parameters: INodeParameters,
  staticData = {},
  credentialEngine = engine,
  options: ActivationOptions = {},
) {
  const trigger = await activateTrigger(
    credentialEngine,
    makeNode(triggerType, parameters, 'Observation Trigger'),
    staticData,
    'trigger',
    options,
  );
  active.push(trigger);
  return trigger;
}

/** Waits until the subscription's socket is up on the server side. */
async function connected(count = 1): Promise<void> {
  await eventually(() => sim.control.stats().openSockets >= count);
}

describe('production (activated workflow)', () => {
  test('one subscription per activation; each event becomes one flat item; close is complete and idempotent', async () => {
    const before = sim.control.stats().connectionsTotal;
    const trigger = await activate({ tasks: 'all' });
    await connected();
    const sent = await sim.control.emit(3);
    const items = await trigger.waitForItems(3);
    expect(sim.control.stats().openSockets).toBe(1);
    expect(sim.control.stats().connectionsTotal - before).toBe(1);
    expect(items.map((item) => item.json.taskId)).toEqual(sent.map((event) => event.task_id));
    const first = items[0]?.json ?? {};
    expect(first).toMatchObject({ eventName: sent[0]?.event_name, eventTypeId: sent[0]?.event_id });
    expect(typeof first.occurredAt).toBe('string');
    expect(Array.isArray(first.objects)).toBe(true);
    expect(typeof first.maxConfidence).toBe('number');
    // One execution per event, like n8n's own realtime triggers.
    expect(trigger.emitted).toHaveLength(3);

    await trigger.close();
    await trigger.close();
    // The server has no socket left to push on: nothing more can reach the closed trigger.
    await eventually(() => sim.control.stats().openSockets === 0);
    expect(trigger.emitted).toHaveLength(3);
    expect(trigger.errors).toEqual([]);
  });

  test('each execution carries a deduplication key naming workflow, node and event (n8n refuses a repeat)', async () => {
    const trigger = await activate({ tasks: 'all', options: { catchUp: true } });
    await connected();
    const sent = await sim.control.emit(3);
    await trigger.waitForItems(3);
    const nodeId = /^observation:wf-1:([^:]+):/.exec(trigger.keys[0] ?? '')?.[1];
    expect(nodeId).toMatch(/^node-\d+$/);
    expect(trigger.keys).toEqual(sent.map((event) => `observation:wf-1:${nodeId}:${event.id}`));
  });

  test('tasks by id only deliver those tasks', async () => {
    const [a, b, c] = sim.world.tasks.map((task) => task.id);
    if (a === undefined || b === undefined || c === undefined) throw new Error('too few tasks');
    const trigger = await activate({ tasks: 'ids', taskIds: `${a}, ${b}` });
    await connected();
    await sim.control.emit(2, { taskIds: [c] });
    await sim.control.emit(2, { taskIds: [a, b] });
    const items = await trigger.waitForItems(2);
    expect(items.map((item) => item.json.taskId).sort()).toEqual([a, b].sort());
    // A later event of a selected task: everything before it was offered to the trigger.
    const [sentinel] = await sim.control.emit(1, { taskIds: [a] });
    const all = await trigger.waitForItems(3);
    expect(all.at(-1)?.json.id).toBe(sentinel?.id);
    expect(all.every((item) => item.json.taskId !== c)).toBe(true);
  });

  test('filters: event names, minimum confidence, object names and warnings only', async () => {
    const type = sim.world.eventTypes[0];
    if (!type) throw new Error('no event types');
    const filters = { eventNames: [type.name], minConfidence: 0.3, warningsOnly: false, objectNames: '' };
    const trigger = await activate({ tasks: 'all', filters });
    const warnings = await activate({ tasks: 'all', filters: { warningsOnly: true } });
    await connected(2);
    const sent = await sim.control.emit(40);
    const expected = sent.filter(
      (event) =>
        event.event_name === type.name &&
        event.detected_objects.some((object) => object.confidence_score >= 0.3),
    );
    const expectedWarnings = sent.filter((event) => event.detected_objects.some((object) => object.warning));
    expect(expected.length).toBeGreaterThan(0);
    expect(expectedWarnings.length).toBeGreaterThan(0);
    const items = await trigger.waitForItems(expected.length);
    const warned = await warnings.waitForItems(expectedWarnings.length);
    // Nothing beyond the expected ones: a later event that passes both filters arrives next.
    const passesBoth = (event: (typeof sent)[number]) =>
      expected.length > 0 &&
      event.event_name === type.name &&
      event.detected_objects.some((object) => object.confidence_score >= 0.3) &&
      event.detected_objects.some((object) => object.warning);
    let sentinel: (typeof sent)[number] | undefined;
    for (let round = 0; !sentinel && round < 500; round++) {
      const [event] = await sim.control.emit(1);
      if (event && passesBoth(event)) sentinel = event;
      else if (event) {
        if (
          expected.length > 0 &&
          event.event_name === type.name &&
          event.detected_objects.some((o) => o.confidence_score >= 0.3)
        )
          expected.push(event);
        if (event.detected_objects.some((object) => object.warning)) expectedWarnings.push(event);
      }
    }
    if (!sentinel) throw new Error('no event passed both filters');
    expected.push(sentinel);
    expectedWarnings.push(sentinel);
    await trigger.waitForItems(expected.length);
    await warnings.waitForItems(expectedWarnings.length);
    expect(trigger.emitted.flatMap((b) => b[0] ?? []).at(-1)?.json.id).toBe(sentinel.id);
    expect(warnings.emitted.flatMap((b) => b[0] ?? []).at(-1)?.json.id).toBe(sentinel.id);
    const timestamps = (list: INodeExecutionData[]) =>
      list.map((item) => `${item.json.taskId}@${item.json.timestamp}`);
    expect(timestamps(trigger.emitted.flatMap((b) => b[0] ?? []))).toEqual(
      expected.map((event) => `${event.task_id}@${event.timestamp}`),
    );
    expect(items.every((item) => item.json.eventName === type.name)).toBe(true);
    expect(warned.every((item) => item.json.hasWarning === true)).toBe(true);
    expect(warnings.emitted.flatMap((b) => b[0] ?? [])).toHaveLength(expectedWarnings.length);
  });

  test('object names filter matches any detected object, case-insensitively', async () => {
    const trigger = await activate({ tasks: 'all', filters: { objectNames: 'PERSON, smoke' } });
    await connected();
    const sent = await sim.control.emit(30);
    const expected = sent.filter((event) =>
      event.detected_objects.some((object) => ['person', 'smoke'].includes(object.object_name.toLowerCase())),
    );
    expect(expected.length).toBeGreaterThan(0);
    const items = await trigger.waitForItems(expected.length);
    for (const item of items) {
      expect((item.json.objectNames as string[]).some((name) => ['person', 'smoke'].includes(name))).toBe(
        true,
      );
    }
  });

  test('attach snapshot adds the image as binary data', async () => {
    const trigger = await activate({
      tasks: 'all',
      options: { attachSnapshot: true, binaryPropertyName: 'snapshot' },
    });
    await connected();
    await sim.control.emit(1);
    const [item] = await trigger.waitForItems(1);
    expect(item?.binary?.snapshot?.mimeType).toMatch(/^image\//);
    expect(item?.json.snapshotError).toBeUndefined();
  });

  test('snapshots written after the event: items carry them once they appear, in event order; one that never appears is flagged', async () => {
    const trigger = await activate({
      tasks: 'ids',
      taskIds: '1',
      options: { attachSnapshot: true, snapshotWaitSeconds: 2, batchSize: 2, batchWaitMs: 50 },
    });
    await connected();
    const late = await sim.control.emit(4, { taskIds: [1], latenessMs: 0, snapshotDelayMs: 800 });
    const [never] = await sim.control.emit(1, { taskIds: [1], latenessMs: 0, snapshotDelayMs: 'never' });
    // A sentinel after it: the stream went on past the missing snapshot.
    const [sentinel] = await sim.control.emit(1, { taskIds: [1], latenessMs: 0, snapshotDelayMs: 0 });
    const sent = [...late, never, sentinel].map((event) => event?.id);
    const items = await trigger.waitForItems(sent.length);
    expect(items.map((item) => item.json.id)).toEqual(sent);
    for (const item of items.filter((item) => item.json.id !== never?.id)) {
      expect(item.binary?.data?.mimeType).toMatch(/^image\//);
      expect(item.json.missingImages).toBeUndefined();
    }
    const flagged = items.find((item) => item.json.id === never?.id);
    expect(flagged?.binary).toBeUndefined();
    expect(flagged?.json.missingImages).toEqual(['snapshot']);
    expect(String(flagged?.json.snapshotError)).toMatch(/not there after waiting [12]\.\d s/);
    expect(String(flagged?.json.snapshotError)).not.toContain(sim.token);
  });

  test('malformed messages are reported, never kill the trigger, and the stream goes on', async () => {
    const trigger = await activate({ tasks: 'all' });
    await connected();
    sim.control.sendMalformed('not-json', 2);
    sim.control.sendMalformed('wrong-types', 1);
    sim.control.sendMalformed('missing-fields', 1);
    const sent = await sim.control.emit(2);
    const items = await trigger.waitForItems(2);
    expect(items.map((item) => item.json.timestamp)).toEqual(sent.map((event) => event.timestamp));
    expect(trigger.errors).toEqual([]);
  });

  test('a dropped connection is re-established by core: still one socket, no trigger error, events flow again', async () => {
    const trigger = await activate({ tasks: 'all' });
    await connected();
    const before = sim.control.stats().connectionsTotal;
    sim.control.dropConnections();
    await eventually(
      () => sim.control.stats().connectionsTotal > before && sim.control.stats().openSockets === 1,
      15_000,
    );
    await connected();
    const sent = await sim.control.emit(2);
    const items = await trigger.waitForItems(2);
    expect(items.map((item) => item.json.timestamp)).toEqual(sent.map((event) => event.timestamp));
    expect(sim.control.stats().openSockets).toBe(1);
    expect(trigger.errors).toEqual([]);
  });

  test('a refused token surfaces as a trigger error n8n shows, without the token', async () => {
    const badToken = 'expired-or-wrong-token-xyz';
    const badEngine = await createEngine(tokenCredential(sim, { accessToken: badToken }));
    const trigger = await activate({ tasks: 'all' }, {}, badEngine);
    const error = await trigger.waitForError();
    expect(error.name).toBe('NodeApiError');
    expect(error.message).toMatch(/401|403|refused/i);
    expect(
      JSON.stringify({
        message: error.message,
        description: (error as { description?: unknown }).description,
      }),
    ).not.toContain(badToken);
    await trigger.close();
    await eventually(() => sim.control.stats().openSockets === 0);
  });

  test('catch up: events missed while inactive (late ones too) are delivered once, from the position in static data', async () => {
    const parameters = { tasks: 'all', options: { catchUp: true, maxLookBackMinutes: 60 } };
    const startedMs = Date.now();
    const first = await activate(parameters);
    await connected();
    const seen = await sim.control.emit(2);
    await first.waitForItems(2);
    // Core saves its position once the executions of those events have ended (at most a second
    // later); n8n writes static data to its database with the next emit.
    await eventually(() => seen.every((event) => storedIds(first.staticData).includes(event.id)));
    // n8n keeps a workflow's static data per node and saves it with the workflow.
    const saved = JSON.parse(JSON.stringify(first.staticData)) as Record<
      string,
      { position?: { format?: string; streams?: Record<string, { ids?: unknown[] }> } }
    >;
    const position = saved['node:Observation Trigger']?.position;
    expect(position?.format).toBe('observation-position');
    await first.close();
    await eventually(() => sim.control.stats().openSockets === 0);

    const missed = await sim.control.emit(2);
    // Published while inactive, late: it happened while the first activation ran (a slow answer),
    // so it is covered, and only history has it.
    const late = await sim.control.emit(1, { latenessMs: Math.max(0, Date.now() - startedMs - 500) });
    const second = await activate(parameters, saved);
    await second.waitForItems(3);
    await connected();
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    const items = await second.waitForItems(4);
    expect(items.map((item) => item.json.id).sort()).toEqual(
      [...missed, ...late, sentinel].map((event) => event?.id).sort(),
    );
  });

  test('a corrupt stored position is logged, the look-back is used and the trigger runs', async () => {
    const parameters = { tasks: 'all', options: { catchUp: true, maxLookBackMinutes: 1 } };
    const recent = await sim.control.emit(1, { latenessMs: 0 });
    const trigger = await activate(parameters, {
      'node:Observation Trigger': { position: { format: 'observation-position', version: 99 } },
    });
    // The minute before the start is caught up (this event among what earlier tests sent).
    await trigger.waitForItemsWhere((items) => items.some((item) => item.json.id === recent[0]?.id));
    await connected();
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    const items = await trigger.waitForItemsWhere((list) =>
      list.some((item) => item.json.id === sentinel?.id),
    );
    const ids = items.map((item) => item.json.id);
    expect(ids.at(-1)).toBe(sentinel?.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('without catch up, a reactivation starts from live events only', async () => {
    const first = await activate({ tasks: 'all' });
    await connected();
    const saved = JSON.parse(JSON.stringify(first.staticData));
    await first.close();
    await eventually(() => sim.control.stats().openSockets === 0);
    await sim.control.emit(2);
    const second = await activate({ tasks: 'all' }, saved);
    await connected();
    const [live] = await sim.control.emit(1);
    const [item] = await second.waitForItems(1);
    expect(item?.json.id).toBe(live?.id);
    // A second live event is the evidence that nothing missed came before or between.
    const [next] = await sim.control.emit(1);
    const items = await second.waitForItems(2);
    expect(items.map((entry) => entry.json.id)).toEqual([live?.id, next?.id]);
  });
});

describe('manual mode ("Listen for test event")', () => {
  test('answers at once with the newest matching event from history, marked as a test event', async () => {
    const type = sim.world.eventTypes[1];
    if (!type) throw new Error('no event types');
    const older = await sim.control.emit(3, { latenessMs: 4_000 });
    // Last published and on time: no earlier event is newer.
    const [newest] = await sim.control.emit(1, { latenessMs: 0 });
    // Matching the filter or not decides: the newest event of another kind is not the answer.
    const node = makeNode(
      triggerType,
      { tasks: 'all', filters: { eventNames: [newest?.event_name ?? type.name] } },
      'Observation Trigger',
    );
    expect(older.length).toBe(3);
    const { items, error } = await runNode(engine, node, [{ json: {} }], 'manual');
    expect(error).toBeUndefined();
    expect(items).toHaveLength(1);
    expect(items[0]?.json.id).toBe(newest?.id);
    expect(items[0]?.json.testEvent).toBe(true);
    await eventually(() => sim.control.stats().openSockets === 0);
  });

  test('without a matching event in history, the first live one answers, not marked', async () => {
    // A task created now has no history: only a live event can answer.
    const fresh = sim.control.addTask({ name: 'Loading dock, new camera' });
    const node = makeNode(triggerType, { tasks: 'ids', taskIds: String(fresh.id) }, 'Observation Trigger');
    const run = runNode(engine, node, [{ json: {} }], 'manual');
    await connected();
    const [live] = await sim.control.emit(1, { taskIds: [fresh.id], latenessMs: 0 });
    const { items, error } = await run;
    expect(error).toBeUndefined();
    expect(items.map((item) => item.json.id)).toEqual([live?.id]);
    expect(items[0]?.json.testEvent).toBeUndefined();
    await eventually(() => sim.control.stats().openSockets === 0);
  });

  test('stopping "listen" before any event closes the connection and ends the wait', async () => {
    // A filter nothing matches, in history or live.
    const node = makeNode(
      triggerType,
      { tasks: 'all', filters: { eventNames: ['no_such_event'] } },
      'Observation Trigger',
    );
    const before = sim.control.stats().connectionsTotal;
    const trigger = await activateTrigger(engine, node, {}, 'manual');
    const listening = trigger.response?.manualTriggerFunction?.();
    await eventually(
      () => sim.control.stats().connectionsTotal > before && sim.control.stats().openSockets === 1,
    );
    await trigger.close();
    await expect(listening).resolves.toBeUndefined();
    await eventually(() => sim.control.stats().openSockets === 0);
    expect(trigger.emitted).toEqual([]);
  });

  test('a refused token fails the manual run with a readable error', async () => {
    const badEngine = await createEngine(tokenCredential(sim, { accessToken: 'wrong-token-123' }));
    const node = makeNode(triggerType, { tasks: 'all' }, 'Observation Trigger');
    const { error } = await runNode(badEngine, node, [{ json: {} }], 'manual');
    expect(error?.message).toMatch(/401|403|refused/i);
    expect(error?.message).not.toContain('wrong-token-123');
    await eventually(() => sim.control.stats().openSockets === 0);
  });
});

describe('activation modes and backpressure', () => {
  test("without catch up, n8n's own restart (init) and a leader change resume from the saved position", async () => {
    const first = await activate({ tasks: 'all' });
    await connected();
    const seen = await sim.control.emit(2, { latenessMs: 0 });
    await first.waitForItems(2);
    // Their executions have ended: the saved position covers them.
    await eventually(() => first.unfinished === 0);
    await first.close();
    await eventually(() => sim.control.stats().openSockets === 0);
    const saved = JSON.parse(JSON.stringify(first.staticData)) as IDataObject;
    for (const activation of ['init', 'leadershipChange'] as const) {
      const missed = await sim.control.emit(2, { latenessMs: 0 });
      const again = await activate({ tasks: 'all' }, JSON.parse(JSON.stringify(saved)), engine, {
        activation,
      });
      await connected();
      const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
      const items = await again.waitForItemsWhere((list) =>
        list.some((item) => item.json.id === sentinel?.id),
      );
      // Everything since the saved position (what a later activation missed too), once, then live.
      const ids = items.map((item) => item.json.id as number);
      expect(ids).toEqual(expect.arrayContaining([...missed.map((event) => event.id), sentinel?.id]));
      expect(ids.filter((id) => seen.some((event) => event.id === id))).toEqual([]);
      expect(new Set(ids).size).toBe(ids.length);
      await again.close();
      await eventually(() => sim.control.stats().openSockets === 0);
    }
  });

  test('the position covers an event only once its execution has ended; unfinished executions hold the trigger back', async () => {
    const trigger = await activate(
      { tasks: 'all', options: { catchUp: true, maxUnfinished: 3 } },
      {},
      engine,
      { holdExecutions: true },
    );
    await connected();
    const sent = await sim.control.emit(5, { latenessMs: 0 });
    // Three executions may be unfinished at once: the fourth event waits for one to end.
    await eventually(() => trigger.emitted.length === 3 && trigger.unfinished === 3);
    const ids = sent.map((event) => event.id);
    const covered = () => storedIds(trigger.staticData).filter((id) => ids.includes(id));
    expect(covered()).toEqual([]);
    await trigger.release(1);
    await eventually(() => trigger.emitted.length === 4);
    // Saved at most a second after the first execution ended: it covers the first event only.
    await eventually(() => covered().length === 1, 3_000);
    expect(covered()).toEqual([ids[0]]);
    await trigger.release();
    await eventually(() => trigger.emitted.length === 5);
    await trigger.release();
    expect(trigger.emitted.map((batch) => batch[0]?.[0]?.json.id)).toEqual(sent.map((event) => event.id));
  });

  test('Max Unfinished Executions is checked: the message names the field, the value and the range', async () => {
    await expect(
      activateTrigger(engine, makeNode(triggerType, { tasks: 'all', options: { maxUnfinished: 0 } }, 'T')),
    ).rejects.toThrow(/Max Unfinished Executions.*got 0.*whole number from 1 to 10000/);
  });
});
