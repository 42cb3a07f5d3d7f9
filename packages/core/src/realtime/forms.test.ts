import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import type { PositionStore } from '../ports.js';
import { memoryStore } from './__tests__/memory-store.js';
import { recorder, recordIdOf, waitFor } from './__tests__/recorder.js';
import { simulatorContext } from './__tests__/simulator-context.js';
import { positionScope } from './position.js';
import { createSubscription } from './subscription-handle.js';

const fast = { heartbeatMs: 1_000, backoff: { baseMs: 5, maxMs: 50 } };

/**
 * Subscribes from `store` with a look-back that would replay what history holds, and shows that
 * the start is live: the one event published once it is open comes alone (live events come after
 * a catch-up, so a replay would be here first), no error, and the log says `why`.
 */
async function startsLive(sim: Simulator, store: PositionStore, why: RegExp): Promise<void> {
  const notes: string[] = [];
  const warnings: string[] = [];
  const context = {
    ...simulatorContext(sim),
    logger: {
      debug: () => undefined,
      info: (message: string) => void notes.push(message),
      warn: (message: string) => void warnings.push(message),
    },
  };
  const rec = recorder();
  const sub = createSubscription(context, 'all', rec.handlers, {
    ...fast,
    position: store,
    lookBackMs: 60_000,
  });
  await waitFor(() => sub.state === 'open', 'open');
  const live = await sim.control.emit(1);
  await waitFor(() => rec.events.length >= 1, 'the live event');
  expect(rec.events.map((event) => event.id)).toEqual(live.map((event) => event.id));
  expect(rec.errors).toEqual([]);
  // Said at info level: the settings changed, nothing is wrong (a host shows warnings as faults).
  expect(notes.some((message) => why.test(message))).toBe(true);
  expect(warnings).toEqual([]);
  await sub.close();
}

/** A subscription from `store` whose token the service refuses, run until it gives up. */
async function refusedStart(sim: Simulator, store: PositionStore): Promise<void> {
  const wrong = createSubscription(
    simulatorContext(sim, { tokens: ['not-a-valid-token'] }),
    'all',
    recorder().handlers,
    { ...fast, position: store, lookBackMs: 60_000 },
  );
  await waitFor(() => wrong.state === 'failed', 'refused');
  await wrong.close();
}

describe('forms and task selection', () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  it('auto on a basic deployment: the extended address is refused (404), basic is used and remembered', async () => {
    sim = await startSimulator({ form: 'basic', historySize: 0 });
    const [a, b] = sim.world.tasks.map((task) => task.id) as [number, number];
    const context = simulatorContext(sim, { form: 'auto' });
    const rec = recorder();
    const sub = createSubscription(context, [a, b], rec.handlers, fast);
    await waitFor(() => sub.state === 'open', 'open');
    expect(context.knownForm()).toBe('basic');
    expect(sim.control.stats().connectionsRefused).toBe(1);
    expect(sim.control.stats().openSockets).toBe(2);
    const emitted = await sim.control.emit(6, { taskIds: [a, b] });
    await waitFor(() => rec.events.length === emitted.length, 'events');
    expect(rec.events.every((event) => event.form === 'basic')).toBe(true);
    expect(rec.errors).toEqual([]);
    await sub.close();

    // The answer is remembered: the next subscription goes straight to basic.
    const again = createSubscription(context, a, recorder().handlers, fast);
    await waitFor(() => again.state === 'open', 'open again');
    expect(sim.control.stats().connectionsRefused).toBe(1);
    await again.close();
  });

  it('auto with a service id on a current deployment uses and remembers extended', async () => {
    sim = await startSimulator({ historySize: 0 });
    const context = simulatorContext(sim, { form: 'auto' });
    const sub = createSubscription(context, 'all', recorder().handlers, fast);
    await waitFor(() => sub.state === 'open', 'open');
    expect(context.knownForm()).toBe('extended');
    expect(sim.control.stats().openSockets).toBe(1);
    await sub.close();
  });

  it('extended form on a basic-only deployment fails with a clear error instead of retrying', async () => {
    sim = await startSimulator({ form: 'basic', historySize: 0 });
    const rec = recorder();
    const sub = createSubscription(simulatorContext(sim, { form: 'extended' }), 'all', rec.handlers, fast);
    await waitFor(() => sub.state === 'failed', 'failed');
    expect(rec.errors[0]?.message).toMatch(/no extended realtime address .*HTTP 404.*form 'basic'/);
    expect(sim.control.stats().connectionsRefused).toBe(1);
    await sub.close();
  });

  it("basic 'all' follows the task list: an added task is picked up (with what it emitted before), a removed one is let go", async () => {
    sim = await startSimulator({ form: 'basic', historySize: 0 });
    const initial = sim.world.tasks.length;
    const context = simulatorContext(sim, { form: 'basic', serviceId: null });
    const rec = recorder();
    const sub = createSubscription(context, 'all', rec.handlers, { ...fast, taskRefreshMs: 150 });
    await waitFor(
      () => sub.state === 'open' && sim.control.stats().openSockets === initial,
      'one socket per task',
    );

    const added = sim.control.addTask({ name: 'Loading dock' });
    // Emitted before the subscription can know the task: only history has these.
    const early = await sim.control.emit(3, { taskIds: [added.id] });
    await waitFor(() => sim.control.stats().openSockets === initial + 1, 'socket for the added task');
    await waitFor(() => sub.state === 'open', 'caught up');
    const late = await sim.control.emit(3, { taskIds: [added.id] });
    const wanted = [...early, ...late].map((event) => event.id);
    await waitFor(() => rec.events.length === wanted.length, 'events of the added task');
    expect(rec.events.map(recordIdOf)).toEqual(wanted);
    expect(rec.sources).toEqual(['backfill', 'backfill', 'backfill', 'live', 'live', 'live']);

    const removed = sim.world.tasks[0]?.id as number;
    sim.control.removeTask(removed);
    await waitFor(() => sim.control.stats().openSockets === initial, 'socket of the removed task closed');
    expect(context.calls.taskLists).toBeGreaterThanOrEqual(3);
    await sub.close();
    expect(sim.control.stats().openSockets).toBe(0);
  });

  it('position: a restart from the stored position delivers exactly what came after it (extended)', async () => {
    sim = await startSimulator({ historySize: 0 });
    const store = memoryStore();
    const first = recorder();
    const sub = createSubscription(simulatorContext(sim), 'all', first.handlers, {
      ...fast,
      position: store,
    });
    await waitFor(() => sub.state === 'open', 'open');
    await sim.control.emit(5);
    await waitFor(() => first.events.length === 5, 'first events');
    await sub.close();
    expect(store.saves).toBeGreaterThan(0);

    const whileDown = await sim.control.emit(7);
    const second = recorder();
    const restarted = createSubscription(simulatorContext(sim), 'all', second.handlers, {
      ...fast,
      position: store,
    });
    await waitFor(() => restarted.state === 'open', 'open');
    const live = await sim.control.emit(2);
    await waitFor(() => second.events.length === 9, 'caught up and live');
    expect(second.events.map((event) => event.id)).toEqual([...whileDown, ...live].map((event) => event.id));
    expect(restarted.stats.backfilled).toBe(7);
    // The five events before the restart fell in the lateness window and were read again: skipped.
    // The read-back after historyLagMs may also meet the live ones of the second the socket opened
    // in, if a loaded machine got there before this line: repeats too, never more.
    expect(restarted.stats.duplicatesDropped).toBeGreaterThanOrEqual(5);
    expect(restarted.stats.duplicatesDropped).toBeLessThanOrEqual(5 + live.length);
    expect(second.errors).toEqual([]);
    await restarted.close();
  });

  it('look-back of a busy minute: read in order, exactly once, in a few pages, not one request per slice', async () => {
    // 600 past events spread over the last 50 s.
    sim = await startSimulator({ historySize: 600, historySpanMs: 50_000 });
    const context = simulatorContext(sim);
    const past: { id: number; timestamp: string }[] = [];
    for await (const raw of context.fetchHistory({
      startTime: new Date(Date.now() - 120_000),
      taskIds: 'all',
    })) {
      past.push(raw as { id: number; timestamp: string });
    }
    past.sort((a, b) => a.id - b.id);
    expect(past).toHaveLength(600);
    const requestsToList = context.calls.history;
    const rec = recorder();
    const sub = createSubscription(context, 'all', rec.handlers, { ...fast, lookBackMs: 120_000 });
    await waitFor(() => sub.state === 'open' && rec.events.length >= 600, 'caught up');
    expect(rec.events.map((event) => event.id)).toEqual(past.map((event) => event.id));
    expect(sub.stats.backfilled).toBe(600);
    // 6 full pages of 100 are the floor; windows sized by the events add a few short pages, and
    // each window ends with an empty page.
    expect(context.calls.history - requestsToList).toBeLessThanOrEqual(14);
    await sub.close();
  });

  it('look-back of a quiet day: a handful of requests, not one per slice', async () => {
    sim = await startSimulator({ historySize: 3, historySpanMs: 20 * 3600_000 });
    const context = simulatorContext(sim);
    const rec = recorder();
    const sub = createSubscription(context, 'all', rec.handlers, {
      ...fast,
      lookBackMs: 24 * 3600_000,
      maxLookBackMs: 24 * 3600_000,
    });
    await waitFor(() => sub.state === 'open' && rec.events.length === 3, 'caught up');
    // A handful of windows, each a page where it holds events and the empty page that ends it.
    expect(context.calls.history).toBeLessThanOrEqual(10);
    await sub.close();
  });

  it('position in the basic form: what came while down, once, after a restart', async () => {
    sim = await startSimulator({ form: 'basic', historySize: 0 });
    const [a] = sim.world.tasks.map((task) => task.id) as [number];
    const store = memoryStore();
    const basic = () => simulatorContext(sim, { form: 'basic', serviceId: null });
    const first = recorder();
    const sub = createSubscription(basic(), a, first.handlers, { ...fast, position: store });
    await waitFor(() => sub.state === 'open', 'open');
    const before = await sim.control.emit(4, { taskIds: [a] });
    await waitFor(() => first.events.length === 4, 'first events');
    await sub.close();
    const whileDown = await sim.control.emit(3, { taskIds: [a] });
    const rec = recorder();
    const restarted = createSubscription(basic(), a, rec.handlers, { ...fast, position: store });
    await waitFor(() => rec.events.length >= 3 && restarted.state === 'open', 'caught up');
    const sentinel = await sim.control.emit(1, { taskIds: [a] });
    await waitFor(() => rec.events.length >= 4, 'sentinel');
    expect(rec.events.map(recordIdOf)).toEqual([...whileDown, ...sentinel].map((event) => event.id));
    // The events before the restart, read again in the lateness window (and, on a loaded machine,
    // the sentinel met again by the read-back after historyLagMs).
    expect(restarted.stats.duplicatesDropped).toBeGreaterThanOrEqual(before.length);
    expect(restarted.stats.duplicatesDropped).toBeLessThanOrEqual(before.length + sentinel.length);
    await restarted.close();
  });
});

describe('subscription handle', () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  it('validates the selection, handlers and options before connecting', async () => {
    sim = await startSimulator({ historySize: 0 });
    const context = simulatorContext(sim);
    const handlers = recorder().handlers;
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return ValidationError.isInstance(error) ? error.parameter : 'other error';
      }
      return 'accepted';
    };
    expect(refusal(() => createSubscription(context, [1, 1], handlers))).toBe('selection');
    expect(refusal(() => createSubscription(context, -2, handlers))).toBe('selection[0]');
    expect(refusal(() => createSubscription(context, 1, {} as never))).toBe('handlers.onEvent');
    expect(refusal(() => createSubscription(context, 1, handlers, { highWaterMark: 0 }))).toBe(
      'options.highWaterMark',
    );
    expect(refusal(() => createSubscription(simulatorContext(sim, { serviceId: null }), 1, handlers))).toBe(
      'serviceId',
    );
    expect(sim.control.stats().connectionsTotal).toBe(0);
  });

  it("an earlier version's cursor older than maxLookBackMs: migrated, caught up only from the limit, both said", async () => {
    sim = await startSimulator({ historySize: 0 });
    const recent = await sim.control.emit(2);
    const rec = recorder();
    const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, {
      ...fast,
      position: memoryStore({ time: '2020-01-01T00:00:00Z', id: 3 }),
      maxLookBackMs: 60_000,
    });
    await waitFor(() => sub.state === 'open' && rec.events.length === 2, 'caught up');
    expect(rec.events.map((event) => event.id)).toEqual(recent.map((event) => event.id));
    expect(rec.errors.map((error) => (error as { code?: string }).code)).toEqual([
      'POSITION_MIGRATED',
      'BACKFILL_TRUNCATED',
    ]);
    expect(rec.errors[1]?.message).toMatch(/maxLookBackMs \(60000 ms\)/);
    await sub.close();
  });

  const scopeOf = (s: Simulator) => positionScope(s.wsUrl, s.serviceId, 'all');
  it.each([
    [
      'corrupt',
      (s: Simulator) => ({
        format: 'observation-position',
        version: 1,
        scope: scopeOf(s),
        streams: { extended: { from: 'never' } },
      }),
      /extended is corrupt: from is "never"/,
    ],
    [
      'corrupt-unfinished',
      (s: Simulator) => ({
        format: 'observation-position',
        version: 1,
        scope: scopeOf(s),
        streams: { extended: { from: new Date().toISOString() } },
        unfinished: { '41': { attempt: 0, at: 'soon' } },
      }),
      /unfinished events are corrupt: 41 holds/,
    ],
    [
      'corrupt-finished-flag',
      (s: Simulator) => ({
        format: 'observation-position',
        version: 1,
        scope: scopeOf(s),
        streams: { extended: { from: new Date().toISOString() } },
        unfinished: { '42': { attempt: 2, at: new Date().toISOString(), finished: 'yes' } },
      }),
      /unfinished events are corrupt: 42 holds .*"finished":"yes"/,
    ],
    ['newer-version', () => ({ format: 'observation-position', version: 9 }), /version 9/],
    ['non-object', () => 'yesterday', /not an object/],
    ['unreadable-cursor', () => ({ time: 'soon' }), /not an ISO time/],
  ])(
    'a %s stored position is reported once and replaced by the look-back; the stream runs',
    async (_name, stored, problem) => {
      sim = await startSimulator({ historySize: 0 });
      const recent = await sim.control.emit(2);
      const store = memoryStore(stored(sim));
      const rec = recorder();
      const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, {
        ...fast,
        position: store,
        lookBackMs: 60_000,
      });
      await waitFor(() => sub.state === 'open' && rec.events.length === 2, 'caught up from the look-back');
      expect(rec.events.map((event) => event.id)).toEqual(recent.map((event) => event.id));
      expect(rec.errors.map((error) => (error as { code?: string }).code)).toEqual(['POSITION_RESET']);
      expect(rec.errors[0]?.message).toMatch(problem);
      const live = await sim.control.emit(1);
      await waitFor(() => rec.events.length === 3, 'live');
      expect(rec.events[2]?.id).toBe(live[0]?.id);
      await sub.close();
      // Replaced by a good one.
      expect((store.value as { format?: string }).format).toBe('observation-position');
    },
  );

  it.each([
    ['live', 0],
    ['look-back', 2],
  ] as const)(
    'an empty store with ifMissing %s: a first start begins live, a lost position catches up the look-back (reported once)',
    async (ifMissing, replayed) => {
      sim = await startSimulator({ historySize: 0 });
      // Published within the look-back, before the start: only a catch-up delivers them.
      const before = await sim.control.emit(2);
      const store = memoryStore(undefined);
      const rec = recorder();
      const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, {
        ...fast,
        position: { store, resume: true, ifMissing },
        lookBackMs: 60_000,
      });
      await waitFor(() => sub.state === 'open', 'open');
      // A live sentinel: once it is in, whatever the start caught up came before it.
      const live = await sim.control.emit(1);
      await waitFor(() => rec.events.some((event) => event.id === live[0]?.id), 'the live sentinel');
      expect(rec.events.map((event) => event.id)).toEqual([
        ...before.slice(0, replayed).map((event) => event.id),
        live[0]?.id,
      ]);
      expect(rec.errors.map((error) => (error as { code?: string }).code)).toEqual(
        ifMissing === 'live' ? [] : ['POSITION_RESET'],
      );
      await sub.close();
    },
  );

  it('a position stored for another service or task selection starts live, as a new subscription (said at info level, no replay)', async () => {
    sim = await startSimulator({ historySize: 0 });
    // Published within the look-back: a replay would deliver them.
    await sim.control.emit(3);
    const store = memoryStore({ format: 'observation-position', version: 1, scope: '0000', streams: {} });
    await startsLive(sim, store, /another service or task selection/);
    expect((store.value as { scope?: string }).scope).not.toBe('0000');
  });

  it('a first start refused for its token, then started with the fixed token, starts live (no replay of the time it spent refused)', async () => {
    sim = await startSimulator({ historySize: 0 });
    const store = memoryStore(undefined);
    await refusedStart(sim, store);
    expect((store.value as { neverConnected?: boolean }).neverConnected).toBe(true);
    // Published after the refused start began, within the look-back: a catch-up from where the
    // refused start began (what its position says) would deliver them.
    await sim.control.emit(3);
    await startsLive(sim, store, /refused before it ever connected/);
    expect((store.value as { neverConnected?: boolean }).neverConnected).toBeUndefined();
  });

  it('a refusal after the subscription had connected keeps the position: the fixed start catches up what it missed', async () => {
    sim = await startSimulator({ historySize: 0 });
    const store = memoryStore(undefined);
    const first = recorder();
    const connected = createSubscription(simulatorContext(sim), 'all', first.handlers, {
      ...fast,
      position: store,
      lookBackMs: 60_000,
    });
    await waitFor(() => connected.state === 'open', 'open');
    const seen = await sim.control.emit(1);
    await waitFor(() => first.events.length === 1, 'the first event');
    await connected.close();
    // The token stops working (rotated on the service) while events keep coming.
    await refusedStart(sim, store);
    expect((store.value as { neverConnected?: boolean }).neverConnected).toBeUndefined();
    const missed = await sim.control.emit(2);
    const rec = recorder();
    const fixed = createSubscription(simulatorContext(sim), 'all', rec.handlers, {
      ...fast,
      position: store,
      lookBackMs: 60_000,
    });
    await waitFor(() => rec.events.length >= 2, 'the missed events');
    expect(rec.events.map((event) => event.id)).toEqual(missed.map((event) => event.id));
    expect(rec.events.map((event) => event.id)).not.toContain(seen[0]?.id);
    await fixed.close();
  });

  it('close() is idempotent and leaves no socket; an aborted signal closes too', async () => {
    sim = await startSimulator({ historySize: 0 });
    const rec = recorder();
    const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, fast);
    await waitFor(() => sub.state === 'open', 'open');
    const first = sub.close();
    expect(sub.close()).toBe(first);
    await first;
    expect(sub.state).toBe('closed');
    expect(rec.states.filter((entry) => entry.state === 'closed')).toHaveLength(1);
    await waitFor(() => sim.control.stats().openSockets === 0, 'server saw the close');
    await sim.control.emit(3);
    expect(rec.events).toEqual([]);

    const controller = new AbortController();
    const aborted = createSubscription(simulatorContext(sim), 'all', recorder().handlers, {
      ...fast,
      signal: controller.signal,
    });
    await waitFor(() => aborted.state === 'open', 'open');
    controller.abort();
    expect(aborted.state).toBe('closed');
    await aborted.close();
    await waitFor(() => sim.control.stats().openSockets === 0, 'server saw the abort');
  });

  it('close() while reconnecting stops the retry loop at once', async () => {
    sim = await startSimulator({ historySize: 0 });
    const sub = createSubscription(simulatorContext(sim), 'all', recorder().handlers, {
      backoff: { baseMs: 60_000, maxMs: 60_000 },
    });
    await waitFor(() => sub.state === 'open', 'open');
    sim.control.refuseConnections(60_000);
    sim.control.dropConnections();
    await waitFor(() => sub.state === 'reconnecting', 'reconnecting');
    const started = Date.now();
    await sub.close();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('a throwing handler is reported and the stream goes on', async () => {
    sim = await startSimulator({ historySize: 0 });
    let calls = 0;
    const rec = recorder(() => {
      calls++;
      if (calls === 2) throw new Error('handler bug');
    });
    const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, fast);
    await waitFor(() => sub.state === 'open', 'open');
    await sim.control.emit(4);
    await waitFor(() => rec.events.length === 4, 'events');
    // Released at once (the default): the failure, then core giving up on it (issue 52).
    expect(rec.errors.map((error) => error.message)).toEqual([
      `onEvent failed for event ${rec.events[1]?.id}: handler bug; it counts as handled`,
      expect.stringMatching(
        new RegExp(
          `^onEvent gave up on event ${rec.events[1]?.id} of task \\d+ after 1 attempt, \\d+ ms after`,
        ),
      ),
    ]);
    expect(sub.stats.delivered).toBe(4);
    await sub.close();
  });
});
