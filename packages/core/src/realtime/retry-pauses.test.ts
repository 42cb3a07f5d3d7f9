import { describe, expect, it } from 'vitest';
import type { Clock } from '../ports.js';
import { manualClock } from './__tests__/manual-clock.js';
import { type AckPolicy, DeliveryQueue, type Failure, type GaveUp } from './delivery-queue.js';

/**
 * The pauses between attempts are minutes in real use: they are checked on a manual clock, to the
 * millisecond (no attempt 1 ms before its pause ends, the attempt at it). On the real clock a test
 * could only check "later", and a pause not waited at all would pass it.
 */
function setup(ack: Omit<AckPolicy, 'clock'>, maxInFlight = 1) {
  const time = manualClock();
  const calls = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  const seen: string[] = [];
  const log = {
    delivered: [] as number[],
    failures: [] as Array<Failure & { items: number[] }>,
    gaveUp: [] as Array<GaveUp & { items: number[] }>,
    /** The length of each sleep aborted (a close or hold ends a pause early). */
    aborted: [] as number[],
  };
  const clock: Clock = {
    now: time.clock.now,
    sleep(ms, signal) {
      signal?.addEventListener('abort', () => log.aborted.push(ms));
      return time.clock.sleep(ms, signal);
    },
  };
  const queue = new DeliveryQueue<number>(
    { highWaterMark: 100, overflow: 'pause', maxInFlight, ack: { ...ack, clock } },
    {
      one: (item, attempt) => {
        seen.push(`${item}:${attempt}`);
        return new Promise<void>((resolve, reject) => calls.set(`${item}:${attempt}`, { resolve, reject }));
      },
    },
    {
      delivered: (item) => log.delivered.push(item),
      failed: (_error, items, failure) => log.failures.push({ ...failure, items }),
      gaveUp: (items, gaveUp) => log.gaveUp.push({ ...gaveUp, items }),
      dropped: () => undefined,
      skipped: () => undefined,
      pressure: () => undefined,
    },
  );
  const settle = async (call: string, error?: Error) => {
    const held = calls.get(call);
    if (!held) throw new Error(`${call} was never handed over`);
    if (error) held.reject(error);
    else held.resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue, log, seen, settle, time };
}

const long = 86_400_000;

describe('pauses between attempts (ack.retryPausesMs)', () => {
  it('attempt 2 comes only once its pause is over, attempt 3 after the next; then core gives up, once', async () => {
    const { queue, log, seen, settle, time } = setup({
      deadlineMs: long,
      attempts: 3,
      retry: true,
      retryPausesMs: [1_000, 5_000],
    });
    queue.push(0);
    await time.advance(250);
    await settle('0:1', new Error('ticket API answered 500'));
    expect(log.failures).toEqual([{ reason: 'failed', attempt: 1, again: true, pauseMs: 1_000, items: [0] }]);
    await time.advance(999);
    expect(seen).toEqual(['0:1']);
    await time.advance(1);
    expect(seen).toEqual(['0:1', '0:2']);
    await settle('0:2', new Error('still 500'));
    await time.advance(4_999);
    expect(seen).toEqual(['0:1', '0:2']);
    await time.advance(1);
    expect(seen).toEqual(['0:1', '0:2', '0:3']);
    expect(log.delivered).toEqual([]);
    expect(log.gaveUp).toEqual([]);
    await settle('0:3', new Error('500 again'));
    // Bounded: three calls in all, whatever time passes.
    await time.advance(long);
    expect(seen).toEqual(['0:1', '0:2', '0:3']);
    expect(log.failures).toHaveLength(1);
    expect(log.gaveUp).toEqual([
      {
        reason: 'failed',
        attempts: 3,
        error: new Error('500 again'),
        firstFailedMs: 250,
        gaveUpMs: 6_250,
        items: [0],
      },
    ]);
    expect(log.delivered).toEqual([0]);
    queue.close();
  });

  it('a pause keeps the slot: with maxInFlight 1 the next event waits for the retry', async () => {
    const { queue, log, seen, settle, time } = setup({
      deadlineMs: long,
      attempts: 2,
      retry: true,
      retryPausesMs: [10_000],
    });
    queue.push(0);
    queue.push(1);
    await settle('0:1', new Error('down'));
    await time.advance(9_999);
    expect(seen).toEqual(['0:1']);
    await time.advance(1);
    expect(seen).toEqual(['0:1', '0:2']);
    await settle('0:2');
    expect(seen).toEqual(['0:1', '0:2', '1:1']);
    expect(log.delivered).toEqual([0]);
    expect(log.gaveUp).toEqual([]);
    queue.close();
  });

  it('with free slots later events go out during the pause and complete after it, in order', async () => {
    const { queue, log, seen, settle, time } = setup(
      { deadlineMs: long, attempts: 2, retry: true, retryPausesMs: [10_000] },
      2,
    );
    queue.push(0);
    queue.push(1);
    queue.push(2);
    await settle('0:1', new Error('down'));
    // 0 holds a slot while it waits; 1 holds the other.
    expect(seen).toEqual(['0:1', '1:1']);
    await settle('1:1');
    expect(seen).toEqual(['0:1', '1:1', '2:1']);
    await settle('2:1');
    // Acknowledged, but the position must not pass 0, still to be tried.
    expect(log.delivered).toEqual([]);
    await time.advance(10_000);
    await settle('0:2');
    expect(log.delivered).toEqual([0, 1, 2]);
    queue.close();
  });

  it('a late attempt waits its pause too (onLate retry), and the deadline then runs from the new call', async () => {
    const { queue, log, seen, time } = setup({
      deadlineMs: 100,
      attempts: 2,
      retry: true,
      retryPausesMs: [1_000],
    });
    queue.push(0);
    await time.advance(100);
    expect(log.failures.map(({ reason, pauseMs }) => ({ reason, pauseMs }))).toEqual([
      { reason: 'late', pauseMs: 1_000 },
    ]);
    await time.advance(999);
    expect(seen).toEqual(['0:1']);
    await time.advance(1);
    expect(seen).toEqual(['0:1', '0:2']);
    await time.advance(99);
    expect(log.gaveUp).toEqual([]);
    await time.advance(1);
    expect(log.gaveUp).toEqual([
      { reason: 'late', attempts: 2, error: undefined, firstFailedMs: 100, gaveUpMs: 1_200, items: [0] },
    ]);
    expect(log.delivered).toEqual([0]);
    queue.close();
  });

  it('a close during a pause cancels it: no further attempt, nothing given up, nothing delivered', async () => {
    const { queue, log, seen, settle, time } = setup({
      deadlineMs: long,
      attempts: 3,
      retry: true,
      retryPausesMs: [60_000, 60_000],
    });
    queue.push(0);
    await settle('0:1', new Error('down'));
    await time.advance(30_000);
    queue.close();
    expect(log.aborted).toContain(60_000);
    await time.advance(long);
    expect(seen).toEqual(['0:1']);
    expect(log.gaveUp).toEqual([]);
    expect(log.delivered).toEqual([]);
  });

  it('a hold during a pause leaves the event unacknowledged and lets go of its slot', async () => {
    const { queue, log, seen, settle, time } = setup(
      { deadlineMs: long, attempts: 3, retry: true, retryPausesMs: [60_000, 60_000] },
      2,
    );
    queue.push(0);
    queue.push(1);
    await settle('0:1', new Error('down'));
    expect(queue.awaiting).toBe(2);
    queue.hold();
    // A graceful close waits for what is out: not for a pause.
    expect(queue.awaiting).toBe(1);
    await settle('1:1');
    await time.advance(long);
    expect(seen).toEqual(['0:1', '1:1']);
    expect(log.delivered).toEqual([]);
    expect(queue.settledAhead()).toEqual([1]);
    expect(log.gaveUp).toEqual([]);
    queue.close();
  });

  it('a handler that throws synchronously takes a slot for its pause', async () => {
    const time = manualClock();
    const seen: string[] = [];
    const delivered: number[] = [];
    const queue = new DeliveryQueue<number>(
      {
        highWaterMark: 100,
        overflow: 'pause',
        ack: { deadlineMs: long, attempts: 2, retry: true, retryPausesMs: [500], clock: time.clock },
      },
      {
        one: (item, attempt) => {
          seen.push(`${item}:${attempt}`);
          if (item === 0 && attempt === 1) throw new Error('bug');
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
    queue.push(0);
    queue.push(1);
    expect(seen).toEqual(['0:1']);
    expect(queue.awaiting).toBe(1);
    await time.advance(500);
    expect(seen).toEqual(['0:1', '0:2', '1:1']);
    expect(delivered).toEqual([0, 1]);
    queue.close();
  });

  it('release gives up at once: one attempt, first failure and give-up at the same time', async () => {
    const { queue, log, settle, time } = setup({ deadlineMs: long, attempts: 3, retry: false });
    queue.push(0);
    await time.advance(42);
    await settle('0:1', new Error('no'));
    expect(log.gaveUp).toEqual([
      { reason: 'failed', attempts: 1, error: new Error('no'), firstFailedMs: 42, gaveUpMs: 42, items: [0] },
    ]);
    expect(log.delivered).toEqual([0]);
  });

  it('an event that succeeds on a later attempt is not given up', async () => {
    const { queue, log, settle, time } = setup({
      deadlineMs: long,
      attempts: 3,
      retry: true,
      retryPausesMs: [10, 10],
    });
    queue.push(0);
    await settle('0:1', new Error('once'));
    await time.advance(10);
    await settle('0:2');
    expect(log.gaveUp).toEqual([]);
    expect(log.delivered).toEqual([0]);
    queue.close();
  });
});
