import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import { ObservationError } from '../errors/observation-error.js';
import { systemClock } from '../node/system-clock.js';
import type { Clock, StoredPosition } from '../ports.js';
import { manualClock } from './__tests__/manual-clock.js';
import { memoryStore } from './__tests__/memory-store.js';
import { recorder, waitFor } from './__tests__/recorder.js';
import { simulatorContext } from './__tests__/simulator-context.js';
import { type AckPolicy, DeliveryQueue, type Failure } from './delivery-queue.js';
import { expandIds } from './position.js';
import { createSubscription } from './subscription-handle.js';

/** The real clock, counting the timers the queue sets (the queue's only way to wait). */
function countingClock() {
  const counted = { timers: 0 };
  const clock: Clock = {
    now: () => systemClock.now(),
    sleep(ms, signal) {
      counted.timers++;
      return systemClock.sleep(ms, signal);
    },
  };
  return { clock, counted };
}

/**
 * A handler whose every call (event and attempt) stays pending until the test settles it; calls
 * are kept by `item:attempt`, so a test can settle an abandoned attempt late.
 */
function attempts() {
  const calls = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  const seen: string[] = [];
  return {
    seen,
    one: (item: number, attempt: number) => {
      seen.push(`${item}:${attempt}`);
      return new Promise<void>((resolve, reject) => calls.set(`${item}:${attempt}`, { resolve, reject }));
    },
    async settle(call: string, error?: Error) {
      const held = calls.get(call);
      if (!held) throw new Error(`${call} was never handed over`);
      if (error) held.reject(error);
      else held.resolve();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/** A queue on a manual clock (unless the test gives a clock), logging what it reports and when. */
function setup(
  one: (item: number, attempt: number, signal: AbortSignal) => void | PromiseLike<void>,
  ack: Omit<AckPolicy, 'clock'> & { clock?: Clock },
  maxInFlight = 1,
) {
  const time = manualClock();
  const clock = ack.clock ?? time.clock;
  const log = {
    delivered: [] as number[],
    failures: [] as Array<Failure & { items: number[]; error: unknown }>,
    /** The clock's time of each failure report: a deadline is measured, not only waited for. */
    reportedAt: [] as number[],
  };
  const queue = new DeliveryQueue<number>(
    { highWaterMark: 100, overflow: 'pause', maxInFlight, ack: { ...ack, clock } },
    { one },
    {
      delivered: (item) => log.delivered.push(item),
      failed: (error, items, failure) => {
        log.failures.push({ ...failure, items, error });
        log.reportedAt.push(clock.now());
      },
      dropped: () => undefined,
      skipped: () => undefined,
      pressure: () => undefined,
    },
  );
  return { queue, log, time };
}

const long = 600_000;

describe('acknowledgement policy of the delivery queue', () => {
  it('a rejection with retry: reported once, handed over again with attempt 2, handled when that one resolves', async () => {
    const handler = attempts();
    const { queue, log } = setup(handler.one, { deadlineMs: long, attempts: 3, retry: true });
    queue.push(0);
    queue.push(1);
    await handler.settle('0:1', new Error('ticket API answered 500'));
    expect(handler.seen).toEqual(['0:1', '0:2']);
    expect(log.delivered).toEqual([]);
    await handler.settle('0:2');
    expect(log.delivered).toEqual([0]);
    expect(handler.seen).toEqual(['0:1', '0:2', '1:1']);
    expect(log.failures).toEqual([
      { reason: 'failed', attempt: 1, again: true, items: [0], error: new Error('ticket API answered 500') },
    ]);
    queue.close();
  });

  it('a rejection on every attempt: `attempts` calls, one report, then released and the next event goes out', async () => {
    const handler = attempts();
    const { queue, log } = setup(handler.one, { deadlineMs: long, attempts: 3, retry: true });
    queue.push(0);
    queue.push(1);
    for (const attempt of [1, 2, 3]) await handler.settle(`0:${attempt}`, new Error(`no ${attempt}`));
    expect(handler.seen).toEqual(['0:1', '0:2', '0:3', '1:1']);
    expect(log.delivered).toEqual([0]);
    expect(log.failures.map(({ attempt, again }) => ({ attempt, again }))).toEqual([
      { attempt: 1, again: true },
    ]);
    queue.close();
  });

  it('a rejection with release: reported once and handled at once, attempt 1 only', async () => {
    const handler = attempts();
    const { queue, log } = setup(handler.one, { deadlineMs: long, attempts: 3, retry: false });
    queue.push(0);
    await handler.settle('0:1', new Error('dropped'));
    expect(log.delivered).toEqual([0]);
    expect(handler.seen).toEqual(['0:1']);
    expect(log.failures.map(({ reason, again }) => ({ reason, again }))).toEqual([
      { reason: 'failed', again: false },
    ]);
    queue.close();
  });

  it('past the deadline with release: reported once as late, released; its settling afterwards is ignored', async () => {
    const handler = attempts();
    const { queue, log, time } = setup(handler.one, { deadlineMs: 30, attempts: 3, retry: false });
    queue.push(0);
    queue.push(1);
    // The deadline runs from the hand-over: not late a millisecond before it, late at it.
    await time.advance(29);
    expect(log.failures).toEqual([]);
    expect(log.delivered).toEqual([]);
    await time.advance(1);
    expect(log.delivered).toEqual([0]);
    expect(log.failures).toEqual([
      { reason: 'late', attempt: 1, again: false, items: [0], error: undefined },
    ]);
    expect(log.reportedAt).toEqual([30]);
    expect(handler.seen).toEqual(['0:1', '1:1']);
    // The abandoned attempt rejects long after: no second report, nothing delivered twice.
    await handler.settle('0:1', new Error('too late'));
    await handler.settle('1:1');
    expect(log.delivered).toEqual([0, 1]);
    expect(log.failures).toHaveLength(1);
    queue.close();
  });

  it('past the deadline with retry: attempt 2 is handed over; a late settle of attempt 1 does not count', async () => {
    const handler = attempts();
    const { queue, log, time } = setup(handler.one, { deadlineMs: 30, attempts: 2, retry: true });
    queue.push(0);
    await time.advance(29);
    expect(handler.seen).toEqual(['0:1']);
    await time.advance(1);
    expect(handler.seen).toEqual(['0:1', '0:2']);
    expect(log.reportedAt).toEqual([30]);
    await handler.settle('0:1');
    expect(log.delivered).toEqual([]);
    await handler.settle('0:2');
    expect(log.delivered).toEqual([0]);
    expect(log.failures.map(({ reason, again }) => ({ reason, again }))).toEqual([
      { reason: 'late', again: true },
    ]);
    queue.close();
  });

  it("each attempt's signal: aborted when core stops waiting for it (late, after the report; closed), never when it settled", async () => {
    const signals = new Map<string, AbortSignal>();
    /** What each abort found: the reports made by then, and the reason's name. */
    const aborts: Array<{ call: string; reports: number; name: string }> = [];
    const handler = attempts();
    const { queue, log, time } = setup(
      (item, attempt, signal: AbortSignal) => {
        const call = `${item}:${attempt}`;
        signals.set(call, signal);
        signal.addEventListener('abort', () =>
          aborts.push({ call, reports: log.failures.length, name: (signal.reason as Error).name }),
        );
        return handler.one(item, attempt);
      },
      { deadlineMs: 30, attempts: 2, retry: true },
      2,
    );
    queue.push(0);
    queue.push(1);
    await handler.settle('1:1');
    await time.advance(30);
    // Event 0's first attempt was late: its signal aborted after the report that says so; the
    // second attempt has a signal of its own; event 1 settled in time and its signal never aborts.
    expect(aborts).toEqual([{ call: '0:1', reports: 1, name: 'TimeoutError' }]);
    expect(handler.seen).toEqual(['0:1', '1:1', '0:2']);
    expect(signals.get('0:2')?.aborted).toBe(false);
    expect(signals.get('1:1')?.aborted).toBe(false);
    queue.push(2);
    await handler.settle('0:2');
    expect(log.delivered).toEqual([0, 1]);
    // Closed while event 2 is out: its signal aborts, the settled ones stay as they were.
    queue.close();
    expect(aborts.map(({ call, name }) => `${call} ${name}`)).toEqual(['0:1 TimeoutError', '2:1 AbortError']);
    expect(signals.get('0:2')?.aborted).toBe(false);
  });

  it('retry on failure, release when late (onLate): a late event is let go, not run a second time beside itself', async () => {
    const handler = attempts();
    const { queue, log, time } = setup(handler.one, {
      deadlineMs: 30,
      attempts: 3,
      retry: true,
      retryLate: false,
    });
    queue.push(0);
    queue.push(1);
    await time.advance(29);
    expect(log.delivered).toEqual([]);
    await time.advance(1);
    expect(log.delivered).toEqual([0]);
    await handler.settle('1:1', new Error('could not start'));
    expect(handler.seen).toEqual(['0:1', '1:1', '1:2']);
    await handler.settle('1:2');
    expect(handler.seen).toEqual(['0:1', '1:1', '1:2']);
    expect(log.delivered).toEqual([0, 1]);
    expect(log.failures.map(({ reason, again }) => ({ reason, again }))).toEqual([
      { reason: 'late', again: false },
      { reason: 'failed', again: true },
    ]);
    queue.close();
  });

  it('past the deadline on every attempt: released after the last one, the next event goes out', async () => {
    const handler = attempts();
    const { queue, log, time } = setup(handler.one, { deadlineMs: 20, attempts: 3, retry: true });
    queue.push(0);
    queue.push(1);
    // Each attempt has a deadline of its own, from its own hand-over: 20, 40, 60.
    for (const [at, seen] of [
      [20, ['0:1', '0:2']],
      [40, ['0:1', '0:2', '0:3']],
      [60, ['0:1', '0:2', '0:3', '1:1']],
    ] as const) {
      await time.advance(19);
      expect(handler.seen, `1 ms before ${at}`).toEqual(seen.slice(0, -1));
      await time.advance(1);
      expect(handler.seen, `at ${at}`).toEqual(seen);
    }
    expect(log.delivered).toEqual([0]);
    // Reported once, at the first deadline.
    expect(log.failures).toHaveLength(1);
    expect(log.reportedAt).toEqual([20]);
    queue.close();
  });

  it('a handler that throws synchronously is retried as a rejection is, and the stream goes on', () => {
    const seen: string[] = [];
    const { queue, log } = setup(
      (item, attempt) => {
        seen.push(`${item}:${attempt}`);
        if (item === 0 && attempt < 2) throw new Error('bug');
      },
      { deadlineMs: long, attempts: 3, retry: true },
    );
    queue.push(0);
    queue.push(1);
    expect(seen).toEqual(['0:1', '0:2', '1:1']);
    expect(log.delivered).toEqual([0, 1]);
    expect(log.failures).toHaveLength(1);
    queue.close();
  });

  it('a retry that returns a promise after a synchronous throw takes the slot: the next event waits for it', async () => {
    const handler = attempts();
    const { queue, log } = setup(
      (item, attempt) => {
        if (item === 0 && attempt === 1) {
          handler.seen.push('0:1');
          throw new Error('bug');
        }
        return handler.one(item, attempt);
      },
      { deadlineMs: long, attempts: 3, retry: true },
    );
    queue.push(0);
    queue.push(1);
    // Attempt 1 threw (it held no slot); attempt 2 is out, so event 1 waits with maxInFlight 1.
    expect(handler.seen).toEqual(['0:1', '0:2']);
    await handler.settle('0:2');
    expect(handler.seen).toEqual(['0:1', '0:2', '1:1']);
    await handler.settle('1:1');
    expect(log.delivered).toEqual([0, 1]);
    queue.close();
  });

  it('maxInFlight still bounds what is with the handler while attempts are retried and released', async () => {
    const calls: Array<{ item: number; attempt: number }> = [];
    let most = 0;
    const { queue, log, time } = setup(
      (item, attempt) => {
        calls.push({ item, attempt });
        // Events handed over and not yet delivered: never more than the two slots.
        const out = new Set(calls.map((call) => call.item).filter((id) => !log.delivered.includes(id)));
        most = Math.max(most, out.size);
        return new Promise<void>(() => undefined);
      },
      { deadlineMs: 20, attempts: 2, retry: true },
      2,
    );
    for (let item = 0; item < 6; item++) queue.push(item);
    // Two at a time, two deadlines of 20 ms each (late, then late again): released at 40, 80, 120.
    await time.advance(119);
    expect(log.delivered).toEqual([0, 1, 2, 3]);
    await time.advance(1);
    expect(log.delivered).toEqual([0, 1, 2, 3, 4, 5]);
    expect(most).toBe(2);
    expect(calls).toHaveLength(12);
    expect(log.failures).toHaveLength(6);
  });

  it('one timer for many events in flight, and none at all for a synchronous handler', async () => {
    const sync = countingClock();
    const fast = setup(() => undefined, { deadlineMs: 1_000, attempts: 3, retry: true, clock: sync.clock });
    for (let item = 0; item < 1_000; item++) {
      fast.queue.push(item);
      // The fast path: delivered before push returns.
      expect(fast.log.delivered.length).toBe(item + 1);
    }
    expect(sync.counted.timers).toBe(0);
    fast.queue.close();

    const async = countingClock();
    const slow = setup(
      () => Promise.resolve(),
      { deadlineMs: 60_000, attempts: 3, retry: true, clock: async.clock },
      100,
    );
    for (let item = 0; item < 1_000; item++) slow.queue.push(item);
    await waitFor(() => slow.log.delivered.length === 1_000, 'all delivered');
    expect(async.counted.timers).toBe(1);
    slow.queue.close();
  });

  it('a batch is one unit: handed over again whole with the next attempt number', async () => {
    const seen: string[] = [];
    const delivered: number[] = [];
    const queue = new DeliveryQueue<number>(
      {
        highWaterMark: 100,
        overflow: 'pause',
        batch: { size: 3, waitMs: 60_000, clock: systemClock },
        ack: { deadlineMs: long, attempts: 2, retry: true, clock: systemClock },
      },
      {
        one: () => undefined,
        batch: (items, attempt) => {
          seen.push(`${items.join(',')}:${attempt}`);
          return attempt === 1 ? Promise.reject(new Error('once')) : Promise.resolve();
        },
      },
      {
        delivered: (item) => delivered.push(item),
        failed: () => undefined,
        dropped: () => undefined,
        skipped: () => undefined,
        pressure: () => undefined,
      },
    );
    for (const item of [0, 1, 2]) queue.push(item);
    await waitFor(() => delivered.length === 3, 'the batch delivered');
    expect(seen).toEqual(['0,1,2:1', '0,1,2:2']);
    queue.close();
  });
});

describe('the ack option over real sockets', () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  it('meta.attempt counts the deliveries of an event, the report names it once, and the position covers every event', async () => {
    sim = await startSimulator({ historySize: 0 });
    const store = memoryStore();
    const attemptsOf = new Map<number, number[]>();
    const rec = recorder((event, meta) => {
      const id = event.id as number;
      attemptsOf.set(id, [...(attemptsOf.get(id) ?? []), meta.attempt]);
      // The first event fails twice, then goes through.
      if (attemptsOf.size === 1 && meta.attempt < 3)
        return Promise.reject(new Error('ticket API answered 500'));
      return Promise.resolve();
    });
    const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, {
      heartbeatMs: 1_000,
      backoff: { baseMs: 5, maxMs: 50 },
      positionSaveMs: 0,
      position: store,
      ack: { onFailure: 'retry' },
    });
    await waitFor(() => sub.state === 'open', 'open');
    const sent = await sim.control.emit(3, { latenessMs: 0 });
    await waitFor(() => sub.stats.delivered === 3, 'three delivered');
    const [first, ...rest] = sent.map((event) => event.id as number);
    expect(attemptsOf.get(first as number)).toEqual([1, 2, 3]);
    for (const id of rest) expect(attemptsOf.get(id)).toEqual([1]);
    expect(rec.errors).toHaveLength(1);
    const error = rec.errors[0] as ObservationError;
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.message).toBe(
      `onEvent failed for event ${first}: ticket API answered 500; delivering it again (attempt 2 of at most 3, then it counts as handled)`,
    );
    await sub.close();
    const last = store.value as StoredPosition | undefined;
    const saved = Object.values(last?.streams ?? {}).flatMap((stream) => expandIds(stream.ids ?? []));
    expect(saved.sort()).toEqual([...sent.map((event) => event.id as number)].sort());
    expect(ObservationError.isInstance(error)).toBe(true);
  });

  it('ack.handlerLabel names who handles the events in the reports, in the host words; eventIds names the events', async () => {
    sim = await startSimulator({ historySize: 0 });
    const rec = recorder(() => Promise.reject(new Error('chat answered 503')));
    const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, {
      heartbeatMs: 1_000,
      ack: { handlerLabel: 'the flow' },
    });
    await waitFor(() => sub.state === 'open', 'open');
    const [event] = await sim.control.emit(1, { latenessMs: 0 });
    await waitFor(() => rec.errors.length === 2, 'the failure and the given-up report');
    expect(rec.errors.map((error) => (error as Error).message.split(':')[0])).toEqual([
      `the flow failed for event ${event?.id}`,
      expect.stringMatching(new RegExp(`^the flow gave up on event ${event?.id} of task`)),
    ]);
    // Each report names its events for the host, without reading the message.
    expect(rec.errors.map((error) => (error as ObservationError).eventIds)).toEqual([
      [event?.id],
      [event?.id],
    ]);
    await sub.close();
  });
});
