import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import { ObservationError } from '../errors/observation-error.js';
import type { StoredPosition } from '../ports.js';
import { memoryStore } from './__tests__/memory-store.js';
import { recorder, waitFor } from './__tests__/recorder.js';
import { simulatorContext } from './__tests__/simulator-context.js';
import { expandIds } from './position.js';
import { createSubscription } from './subscription-handle.js';
import type { EventMeta, GivenUp } from './types.js';

/** Record ids the stored position counts as handled. */
function savedIds(store: { value: unknown }): number[] {
  const position = store.value as StoredPosition | undefined;
  return Object.values(position?.streams ?? {}).flatMap((stream) => expandIds(stream.ids ?? []));
}

function codes(errors: Error[]): string[] {
  return errors.map((error) => (ObservationError.isInstance(error) ? error.code : error.message));
}

const quick = { heartbeatMs: 1_000, backoff: { baseMs: 5, maxMs: 50 }, positionSaveMs: 0 } as const;

describe('giving up and the cooldown over real sockets', () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  it('after the last paused attempt: one HANDLER_GAVE_UP line, onGiveUp once, stats.givenUp, the position passes it', async () => {
    sim = await startSimulator({ historySize: 0 });
    const store = memoryStore();
    const given: GivenUp[] = [];
    let failing: number | undefined;
    const rec = recorder((event) => {
      failing ??= event.id;
      return event.id === failing ? Promise.reject(new Error('ticket API answered 500')) : Promise.resolve();
    });
    // Real time, short pauses: the pause to the millisecond is retry-pauses.test.ts's, on a manual clock.
    const sub = createSubscription(
      simulatorContext(sim),
      'all',
      { ...rec.handlers, onGiveUp: (g) => given.push(g) },
      { ...quick, position: store, ack: { onFailure: 'retry', retryPausesMs: [60, 60] } },
    );
    await waitFor(() => sub.state === 'open', 'open');
    const sent = await sim.control.emit(2, { latenessMs: 0 });
    await waitFor(() => sub.stats.delivered === 2, 'both handled');
    const [first] = sent;
    expect(rec.events.map((event) => event.id)).toEqual([first?.id, first?.id, first?.id, sent[1]?.id]);
    expect(codes(rec.errors)).toEqual(['HANDLER_ERROR', 'HANDLER_GAVE_UP']);
    expect(rec.errors[0]?.message).toBe(
      `onEvent failed for event ${first?.id}: ticket API answered 500; trying again in 60 ms (attempt 2 of at most 3, then it counts as handled)`,
    );
    expect(rec.errors[1]?.message).toMatch(
      new RegExp(
        `^onEvent gave up on event ${first?.id} of task ${rec.events[0]?.taskId} after 3 attempts, \\d+ ms after the first failure; the last error was: ticket API answered 500\\. It counts as handled$`,
      ),
    );
    expect(given).toHaveLength(1);
    const [gave] = given as [GivenUp];
    expect(gave.events.map((event) => event.id)).toEqual([first?.id]);
    expect(gave.metas.map((meta) => meta.source)).toEqual(['live']);
    expect(gave.attempts).toBe(3);
    expect(gave.reason).toBe('failed');
    expect(gave.error?.message).toBe('ticket API answered 500');
    // Two pauses of 60 ms lie between the first failure and the giving up. Timers count from the
    // event loop's cached millisecond clock and Date from the wall clock, each truncated to the
    // millisecond, so each pause can read up to 2 ms short here (a CI run read 119); without the
    // pauses this reads a few ms.
    expect(gave.gaveUpAt.getTime() - gave.firstFailedAt.getTime()).toBeGreaterThanOrEqual(120 - 2 * 2);
    expect(sub.stats.givenUp).toBe(1);
    await sub.close();
    expect(savedIds(store).sort()).toEqual(sent.map((event) => event.id).sort());
  });

  it('release: given up at once after one attempt', async () => {
    sim = await startSimulator({ historySize: 0 });
    const given: GivenUp[] = [];
    const rec = recorder(() => Promise.reject(new Error('no')));
    const sub = createSubscription(
      simulatorContext(sim),
      'all',
      { ...rec.handlers, onGiveUp: (g) => given.push(g) },
      { ...quick, ack: { onFailure: 'release' } },
    );
    await waitFor(() => sub.state === 'open', 'open');
    await sim.control.emit(1, { latenessMs: 0 });
    await waitFor(() => sub.stats.delivered === 1, 'handled');
    expect(codes(rec.errors)).toEqual(['HANDLER_ERROR', 'HANDLER_GAVE_UP']);
    expect(given.map(({ attempts, reason }) => ({ attempts, reason }))).toEqual([
      { attempts: 1, reason: 'failed' },
    ]);
    expect(sub.stats.givenUp).toBe(1);
    await sub.close();
  });

  it('a close during a pause leaves the event out of the stored position, and does not wait for the pause', async () => {
    sim = await startSimulator({ historySize: 0 });
    const store = memoryStore();
    const given: GivenUp[] = [];
    let failing: number | undefined;
    const rec = recorder((event) => {
      failing ??= event.id;
      return event.id === failing ? Promise.reject(new Error('down')) : Promise.resolve();
    });
    const sub = createSubscription(
      simulatorContext(sim),
      'all',
      { ...rec.handlers, onGiveUp: (g) => given.push(g) },
      { ...quick, position: store, maxInFlight: 2, ack: { onFailure: 'retry', retryPausesMs: [600_000] } },
    );
    await waitFor(() => sub.state === 'open', 'open');
    const sent = await sim.control.emit(2, { latenessMs: 0 });
    await waitFor(
      () => rec.events.length === 2 && rec.errors.length === 1,
      'the second handled, the first pausing',
    );
    const started = Date.now();
    await sub.close({ drainMs: 20_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(given).toEqual([]);
    expect(savedIds(store)).not.toContain(sent[0]?.id);
  });

  it('cooldown per task: one alert per task, held ones counted; a given-up alert frees its slot; kept across a restart', async () => {
    sim = await startSimulator({ historySize: 0 });
    const store = memoryStore();
    const metas: Array<{ id: number | undefined; task: number; cooldown: EventMeta['cooldown'] }> = [];
    const given: GivenUp[] = [];
    let failFirst = true;
    const rec = recorder((event, meta) => {
      metas.push({ id: event.id, task: event.taskId, cooldown: meta.cooldown });
      if (failFirst) {
        failFirst = false;
        return Promise.reject(new Error('alert not sent'));
      }
      return Promise.resolve();
    });
    const options = { ...quick, position: store, cooldown: { ms: 3_600_000, per: 'task' as const } };
    const handlers = { ...rec.handlers, onGiveUp: (g: GivenUp) => given.push(g) };
    let sub = createSubscription(simulatorContext(sim), [1, 2], handlers, options);
    await waitFor(() => sub.state === 'open', 'open');
    // One at a time: each is judged after the one before was handled (or given up).
    const emitted: number[] = [];
    for (const taskId of [1, 1, 2, 1, 2, 1]) {
      const [event] = await sim.control.emit(1, { latenessMs: 0, taskIds: [taskId] });
      emitted.push(event?.id as number);
      await waitFor(() => sub.stats.delivered === emitted.length, `event ${emitted.length} handled`);
    }
    const [failed, second, firstOf2, , , ,] = emitted;
    // The first alert of task 1 failed and was given up: the next event of task 1 passed at once.
    expect(given.map((g) => g.events[0]?.id)).toEqual([failed]);
    expect(metas).toEqual([
      { id: failed, task: 1, cooldown: { key: 'task:1', heldBack: 0 } },
      { id: second, task: 1, cooldown: { key: 'task:1', heldBack: 0 } },
      { id: firstOf2, task: 2, cooldown: { key: 'task:2', heldBack: 0 } },
    ]);
    expect(sub.stats).toMatchObject({ delivered: 6, heldBack: 3, givenUp: 1, filtered: 0 });
    await sub.close();
    // Held events count as handled: the position passes them.
    expect(savedIds(store).sort()).toEqual([...emitted].sort());
    expect((store.value as StoredPosition).cooldown?.['task:1']).toMatchObject({
      passes: [{ id: String(second), heldBack: 0 }],
      held: 2,
    });

    // A restart from the stored position: task 1's slot is still taken, task 3's is free.
    sub = createSubscription(simulatorContext(sim), [1, 2], handlers, options);
    await waitFor(() => sub.state === 'open', 'open again');
    const after = [];
    for (const taskId of [1, 2]) {
      const [event] = await sim.control.emit(1, { latenessMs: 0, taskIds: [taskId] });
      after.push(event?.id);
      await waitFor(() => sub.stats.delivered === after.length, `event ${after.length} after the restart`);
    }
    expect(metas).toHaveLength(3);
    expect(sub.stats).toMatchObject({ delivered: 2, heldBack: 2 });
    await sub.close();
    expect((store.value as StoredPosition).cooldown?.['task:1']?.held).toBe(3);
    expect((store.value as StoredPosition).cooldown?.['task:2']?.held).toBe(2);
  });
});
