import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recorder, recordIdOf, waitFor } from './__tests__/recorder.js';
import { simulatorContext } from './__tests__/simulator-context.js';
import { expandIds } from './position.js';
import { createSubscription } from './subscription-handle.js';

const fast = { heartbeatMs: 1_000, backoff: { baseMs: 5, maxMs: 50 } };

describe('subscription against the simulator', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ historySize: 100 });
  });
  afterAll(async () => {
    await sim.stop();
  });

  it('extended: delivers live events of the selected tasks, normalized, with the raw payload', async () => {
    const [a, b, c] = sim.world.tasks.map((task) => task.id);
    const rec = recorder();
    const raws: unknown[] = [];
    const metas: unknown[] = [];
    const sub = createSubscription(
      simulatorContext(sim),
      [a as number, b as number],
      {
        ...rec.handlers,
        onEvent(event, meta) {
          raws.push(meta.raw);
          metas.push(meta);
          return rec.onEvent(event, meta);
        },
      },
      fast,
    );
    await waitFor(() => sub.state === 'open', 'open');
    const emitted = await sim.control.emit(30, { taskIds: [a as number, b as number, c as number] });
    const wanted = emitted.filter((event) => event.task_id !== c);
    await waitFor(() => rec.events.length === wanted.length, 'events');
    expect(rec.events.map((event) => event.id)).toEqual(wanted.map((event) => event.id));
    expect(rec.events[0]?.form).toBe('extended');
    expect((raws[0] as { id: number }).id).toBe(wanted[0]?.id);
    // The meta is plain data: its raw payload, where it came from and which delivery this is.
    expect(Object.keys(metas[0] as object)).toEqual(['raw', 'source', 'attempt']);
    expect(JSON.parse(JSON.stringify(metas[0]))).toEqual({ raw: raws[0], source: 'live', attempt: 1 });
    // The position names every delivered record (within the lateness), not just the last one.
    expect(expandIds(sub.position.streams.extended?.ids ?? [])).toEqual(
      wanted.map((event) => event.id).sort((x, y) => x - y),
    );
    expect(sub.stats).toMatchObject({ received: wanted.length, delivered: wanted.length, malformed: 0 });
    await sub.close();
    expect(sub.state).toBe('closed');
    expect(rec.states.map((entry) => entry.state)).toEqual(['open', 'closed']);
  });

  it('basic: one socket per task, basic payloads', async () => {
    const [a, b] = sim.world.tasks.map((task) => task.id);
    const rec = recorder();
    const sub = createSubscription(
      simulatorContext(sim, { form: 'basic' }),
      [a as number, b as number],
      rec.handlers,
      fast,
    );
    await waitFor(() => sub.state === 'open', 'open');
    await waitFor(() => sim.control.stats().openSockets === 2, 'two sockets');
    const emitted = await sim.control.emit(20, { taskIds: [a as number, b as number] });
    await waitFor(() => rec.events.length === emitted.length, 'events');
    expect(rec.events.every((event) => event.form === 'basic' && event.id === undefined)).toBe(true);
    expect(rec.events.map(recordIdOf).sort((x, y) => x - y)).toEqual(emitted.map((event) => event.id));
    await sub.close();
    await waitFor(() => sim.control.stats().openSockets === 0, 'sockets closed');
  });
});
