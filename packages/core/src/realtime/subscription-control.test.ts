import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import { ObservationError } from '../errors/observation-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { memoryStore } from './__tests__/memory-store.js';
import { recorder, waitFor } from './__tests__/recorder.js';
import { simulatorContext } from './__tests__/simulator-context.js';
import { createSubscription } from './subscription-handle.js';

const fast = { heartbeatMs: 1_000, backoff: { baseMs: 5, maxMs: 50 } };
const ids = (events: { id?: number }[]) =>
  events.map((event) => event.id).sort((a, b) => (a ?? 0) - (b ?? 0));

describe('pause, resume and retarget', () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  it('pause keeps the position; resume catches up what was published meanwhile, each event once', async () => {
    sim = await startSimulator({ historySize: 0 });
    const rec = recorder();
    const store = memoryStore();
    const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, {
      ...fast,
      position: store,
      lookBackMs: 60_000,
    });
    await waitFor(() => sub.state === 'open', 'open');
    const before = await sim.control.emit(3, { latenessMs: 0 });
    await waitFor(() => rec.events.length === 3, 'the first three');
    await sub.pause();
    expect(sub.state).toBe('paused');
    expect(sim.control.stats().openSockets).toBe(0);
    // The host saw `paused`, never the run's `closed`.
    expect(rec.states.map((entry) => entry.state)).toContain('paused');
    expect(rec.states.map((entry) => entry.state)).not.toContain('closed');
    const whilePaused = await sim.control.emit(4, { latenessMs: 0 });
    await sub.resume();
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    await waitFor(() => rec.events.some((event) => event.id === sentinel?.id), 'the sentinel');
    expect(ids(rec.events)).toEqual(ids([...before, ...whilePaused, sentinel as { id: number }]));
    // What was published while paused came from history (the sentinel may come either way).
    for (const missed of whilePaused) {
      const index = rec.events.findIndex((event) => event.id === missed.id);
      expect(rec.sources[index]).toBe('backfill');
    }
    await sub.close();
    expect(sub.state).toBe('closed');
  });

  it('retarget to other tasks starts live; a filter alone resumes from the position', async () => {
    sim = await startSimulator({ historySize: 0 });
    const [a, b] = sim.world.tasks.map((task) => task.id) as [number, number];
    const rec = recorder();
    const sub = createSubscription(simulatorContext(sim), [a], rec.handlers, {
      ...fast,
      position: memoryStore(),
      lookBackMs: 60_000,
    });
    await waitFor(() => sub.state === 'open', 'open');
    // Published on b before the retarget: the new selection starts live, so these stay out.
    await sim.control.emit(2, { taskIds: [b], latenessMs: 0 });
    await sub.retarget({ selection: [b] });
    // The host hears that the new tasks are not listened to yet (it must not show `open` early).
    expect(rec.states.at(-1)?.state).toBe('connecting');
    await waitFor(() => sub.state === 'open', 'open on b');
    const onB = await sim.control.emit(2, { taskIds: [b], latenessMs: 0 });
    await waitFor(() => rec.events.length === 2, 'the events of b');
    expect(ids(rec.events)).toEqual(ids(onB));

    // The same tasks with a filter, asked while paused: it resumes from b's position (what was
    // published while paused is read back), and the filter applies to all of it.
    await sub.pause();
    await sim.control.emit(2, { taskIds: [b], latenessMs: 0 });
    await sub.retarget({ filter: { eventNames: 'no-such-event' } });
    expect(sub.state).toBe('paused');
    await sub.resume();
    await sim.control.emit(1, { taskIds: [b], latenessMs: 0 });
    await waitFor(() => sub.stats.filtered === 3, 'the two missed and the sentinel, filtered in their place');
    expect(rec.events).toHaveLength(2);
    await sub.close();
  });

  it('a paused subscription takes a new target and stays paused until resume', async () => {
    sim = await startSimulator({ historySize: 0 });
    const [a, b] = sim.world.tasks.map((task) => task.id) as [number, number];
    const rec = recorder();
    const sub = createSubscription(simulatorContext(sim), [a], rec.handlers, fast);
    await waitFor(() => sub.state === 'open', 'open');
    // Asked one after the other without waiting: they run in that order.
    const pausing = sub.pause();
    const retargeting = sub.retarget({ selection: [b] });
    await Promise.all([pausing, retargeting]);
    expect(sub.state).toBe('paused');
    expect(sim.control.stats().openSockets).toBe(0);
    await sub.resume();
    await waitFor(() => sub.state === 'open', 'open on b');
    const [onB] = await sim.control.emit(1, { taskIds: [b], latenessMs: 0 });
    await waitFor(() => rec.events.length === 1, 'the event of b');
    expect(rec.events[0]?.id).toBe(onB?.id);
    await sub.close();
  });

  it('a bad target is refused with the field named, and the subscription goes on as it was', async () => {
    sim = await startSimulator({ historySize: 0 });
    const rec = recorder();
    const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, fast);
    await waitFor(() => sub.state === 'open', 'open');
    await expect(sub.retarget({ selection: [0] })).rejects.toSatisfy(ValidationError.isInstance);
    expect(sub.state).toBe('open');
    await expect(sub.retarget({ filter: { minConfidence: 7 } })).rejects.toSatisfy(
      ValidationError.isInstance,
    );
    expect(sub.state).toBe('open');
    expect(rec.states.map((entry) => entry.state)).not.toContain('closed');
    const [event] = await sim.control.emit(1, { latenessMs: 0 });
    await waitFor(() => rec.events.length === 1, 'an event');
    expect(rec.events[0]?.id).toBe(event?.id);
    await sub.close();
  });

  it('after failed, resume starts it again; after close, every control call is refused', async () => {
    sim = await startSimulator({ historySize: 0 });
    const rec = recorder();
    // The first token is refused and cannot be renewed: failed. The next one (a fixed credential) works.
    const context = simulatorContext(sim, { tokens: ['not-a-token', sim.token], canRefreshToken: false });
    const sub = createSubscription(context, 'all', rec.handlers, fast);
    await waitFor(() => sub.state === 'failed', 'failed on a refused token');
    await sub.resume();
    await waitFor(() => sub.state === 'open', 'open with a token that works');
    await sub.close();
    for (const call of [() => sub.pause(), () => sub.resume(), () => sub.retarget({ selection: 'all' })])
      await expect(call()).rejects.toSatisfy(
        (error: unknown) => ObservationError.isInstance(error) && error.code === 'SUBSCRIPTION_CLOSED',
      );
    // Closing while paused reports `closed` once, after `paused`.
    const quiet = recorder();
    const paused = createSubscription(context, 'all', quiet.handlers, fast);
    await waitFor(() => paused.state === 'open', 'open');
    await paused.pause();
    await paused.close();
    expect(paused.state).toBe('closed');
    expect(quiet.states.map((entry) => entry.state).slice(-2)).toEqual(['paused', 'closed']);
  });
});
