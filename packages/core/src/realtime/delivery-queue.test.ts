import { describe, expect, it } from 'vitest';
import { systemClock } from '../node/system-clock.js';
import { waitFor } from './__tests__/recorder.js';
import { type DeliverPort, DeliveryQueue, type DeliveryQueueOptions } from './delivery-queue.js';

interface SetupOptions extends DeliveryQueueOptions, Omit<DeliverPort<number>, 'one' | 'batch'> {
  deliver?: DeliverPort<number>['one'];
  deliverBatch?: DeliverPort<number>['batch'];
}

function setup(overrides: Partial<SetupOptions> = {}) {
  const log = {
    delivered: [] as number[],
    dropped: [] as number[],
    skipped: [] as number[],
    pressure: [] as boolean[],
    errors: [] as unknown[],
  };
  const { deliver, deliverBatch, wanted, prepare, skipKey, ...options } = overrides;
  const queue = new DeliveryQueue<number>(
    { highWaterMark: 4, overflow: 'pause', ...options },
    {
      one: deliver ?? (() => {}),
      ...(deliverBatch ? { batch: deliverBatch } : {}),
      ...(wanted ? { wanted } : {}),
      ...(prepare ? { prepare } : {}),
      ...(skipKey ? { skipKey } : {}),
    },
    {
      delivered: (item) => log.delivered.push(item),
      failed: (error) => log.errors.push(error),
      dropped: (item) => log.dropped.push(item),
      skipped: (item) => log.skipped.push(item),
      pressure: (paused) => log.pressure.push(paused),
    },
  );
  return { queue, log };
}

/** A handler whose calls stay pending until released, like a slow consumer. */
function slowHandler() {
  const waiting: (() => void)[] = [];
  const seen: number[] = [];
  return {
    seen,
    deliver: (item: number) => {
      seen.push(item);
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    async release(count = 1) {
      for (let i = 0; i < count; i++) {
        waiting.shift()?.();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

/** A handler whose calls each stay pending until that very call is settled, in any order. */
function heldHandler() {
  const held = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  const seen: number[] = [];
  return {
    seen,
    deliver: (item: number) => {
      seen.push(item);
      return new Promise<void>((resolve, reject) => held.set(item, { resolve, reject }));
    },
    async settle(item: number, error?: Error) {
      const call = held.get(item);
      if (!call) throw new Error(`item ${item} is not with the handler`);
      held.delete(item);
      if (error) call.reject(error);
      else call.resolve();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('DeliveryQueue', () => {
  it('delivers synchronous handlers at once, in order', () => {
    const { queue, log } = setup();
    for (let i = 0; i < 10; i++) queue.push(i);
    expect(log.delivered).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(queue.length).toBe(0);
    expect(log.pressure).toEqual([]);
  });

  it('awaits an async handler before the next item', async () => {
    const handler = slowHandler();
    const { queue, log } = setup({ deliver: handler.deliver, highWaterMark: 100 });
    queue.push(1);
    queue.push(2);
    expect(handler.seen).toEqual([1]);
    await handler.release();
    expect(handler.seen).toEqual([1, 2]);
    expect(log.delivered).toEqual([1]);
  });

  it('pause: signals pressure at the mark and releases it at half the mark', async () => {
    const handler = slowHandler();
    const { queue, log } = setup({ deliver: handler.deliver });
    for (let i = 0; i < 5; i++) queue.push(i);
    // 0 is with the handler, 1..4 wait: 4 = the mark.
    expect(queue.length).toBe(4);
    expect(log.pressure).toEqual([true]);
    expect(queue.isPressured).toBe(true);
    let roomed = false;
    void queue.waitForRoom().then(() => {
      roomed = true;
    });
    await handler.release();
    expect(roomed).toBe(true);
    expect(log.pressure).toEqual([true]);
    await handler.release();
    expect(log.pressure).toEqual([true, false]);
    expect(log.dropped).toEqual([]);
  });

  it('drop-oldest: never holds more than the mark and counts what it discards', async () => {
    const handler = slowHandler();
    const { queue, log } = setup({ deliver: handler.deliver, overflow: 'drop-oldest' });
    for (let i = 0; i < 100; i++) queue.push(i);
    expect(queue.length).toBe(4);
    expect(queue.peakLength).toBe(4);
    expect(log.dropped).toHaveLength(95);
    expect(log.dropped.slice(0, 3)).toEqual([1, 2, 3]);
    await handler.release(5);
    expect(handler.seen).toEqual([0, 96, 97, 98, 99]);
    expect(log.pressure).toEqual([]);
  });

  it('reports a throwing or rejecting handler and goes on', async () => {
    const { queue, log } = setup({
      deliver: (item) => {
        if (item === 1) throw new Error('sync boom');
        if (item === 2) return Promise.reject(new Error('async boom'));
      },
    });
    queue.push(1);
    queue.push(2);
    queue.push(3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.errors.map((error) => (error as Error).message)).toEqual(['sync boom', 'async boom']);
    expect(log.delivered).toEqual([1, 2, 3]);
  });

  it('close discards what waits, releases waiters and ignores later pushes', async () => {
    const handler = slowHandler();
    const { queue, log } = setup({ deliver: handler.deliver });
    for (let i = 0; i < 6; i++) queue.push(i);
    const room = queue.waitForRoom();
    queue.close();
    await room;
    queue.push(99);
    await handler.release();
    expect(queue.length).toBe(0);
    expect(handler.seen).toEqual([0]);
    expect(log.delivered).toEqual([]);
  });

  describe('maxInFlight', () => {
    it('hands up to N events over while earlier promises are pending, in push order', async () => {
      const handler = heldHandler();
      const { queue, log } = setup({ deliver: handler.deliver, highWaterMark: 100, maxInFlight: 3 });
      for (let i = 0; i < 6; i++) queue.push(i);
      expect(handler.seen).toEqual([0, 1, 2]);
      expect(queue.inFlight).toBe(3);
      expect(queue.length).toBe(3);
      await handler.settle(0);
      // One completed: exactly one more is handed over, the next in order.
      expect(log.delivered).toEqual([0]);
      expect(handler.seen).toEqual([0, 1, 2, 3]);
      expect(queue.inFlight).toBe(3);
    });

    it('reports delivery in order even when a later promise settles first', async () => {
      const handler = heldHandler();
      const { queue, log } = setup({ deliver: handler.deliver, highWaterMark: 100, maxInFlight: 4 });
      for (let i = 0; i < 4; i++) queue.push(i);
      await handler.settle(2);
      await handler.settle(1);
      await handler.settle(3);
      // 0 is still running: nothing after it counts as delivered. The three finished ones free
      // their slots, so the next event is handed over meanwhile.
      expect(log.delivered).toEqual([]);
      expect(queue.inFlight).toBe(4);
      queue.push(4);
      expect(handler.seen).toEqual([0, 1, 2, 3, 4]);
      await handler.settle(0);
      expect(log.delivered).toEqual([0, 1, 2, 3]);
      await handler.settle(4);
      expect(log.delivered).toEqual([0, 1, 2, 3, 4]);
    });

    it('a rejected or throwing handler is reported and its event still completes in its place', async () => {
      const handler = heldHandler();
      const { queue, log } = setup({
        deliver: (item) => {
          if (item === 1) throw new Error('sync boom');
          return handler.deliver(item);
        },
        highWaterMark: 100,
        maxInFlight: 3,
      });
      for (let i = 0; i < 3; i++) queue.push(i);
      // The throw of 1 came while 0 is pending: 1 waits for 0.
      expect(log.delivered).toEqual([]);
      await handler.settle(2, new Error('async boom'));
      expect(log.delivered).toEqual([]);
      await handler.settle(0);
      expect(log.delivered).toEqual([0, 1, 2]);
      expect(log.errors.map((error) => (error as Error).message)).toEqual(['sync boom', 'async boom']);
    });

    it('a synchronous handler after a pending one waits its turn', async () => {
      const handler = heldHandler();
      const { queue, log } = setup({
        deliver: (item) => (item === 0 ? handler.deliver(item) : undefined),
        highWaterMark: 100,
        maxInFlight: 5,
      });
      for (let i = 0; i < 4; i++) queue.push(i);
      expect(log.delivered).toEqual([]);
      await handler.settle(0);
      expect(log.delivered).toEqual([0, 1, 2, 3]);
      // Nothing pending any more: the fast path again.
      queue.push(4);
      expect(log.delivered).toEqual([0, 1, 2, 3, 4]);
    });

    it('an event the handler finished synchronously takes no slot while an earlier one is pending', async () => {
      const handler = heldHandler();
      const { queue, log } = setup({
        deliver: (item) => (item % 2 === 0 ? handler.deliver(item) : undefined),
        highWaterMark: 100,
        maxInFlight: 2,
      });
      for (let i = 0; i < 6; i++) queue.push(i);
      // 0 and 2 hold the two slots; 1 finished at once without one; 3, 4 and 5 wait.
      expect(handler.seen).toEqual([0, 2]);
      expect(queue.length).toBe(3);
      expect(queue.inFlight).toBe(3);
      await handler.settle(2);
      expect(log.delivered).toEqual([]);
      expect(handler.seen).toEqual([0, 2, 4]);
      await handler.settle(0);
      expect(log.delivered).toEqual([0, 1, 2, 3]);
    });

    it('pause counts waiting events against the mark; the handler holds maxInFlight more', async () => {
      const handler = heldHandler();
      const { queue, log } = setup({ deliver: handler.deliver, highWaterMark: 4, maxInFlight: 3 });
      for (let i = 0; i < 6; i++) queue.push(i);
      expect(log.pressure).toEqual([]);
      queue.push(6);
      // 0..2 with the handler, 3..6 wait: 4 = the mark.
      expect(queue.inFlight + queue.length).toBe(7);
      expect(log.pressure).toEqual([true]);
      await handler.settle(0);
      await handler.settle(1);
      expect(log.pressure).toEqual([true, false]);
      expect(log.delivered).toEqual([0, 1]);
    });

    it('drop-oldest: a dropped event passes only after the events handed over before it', async () => {
      const handler = heldHandler();
      const { queue, log } = setup({
        deliver: handler.deliver,
        highWaterMark: 2,
        maxInFlight: 2,
        overflow: 'drop-oldest',
        skipKey: () => 'one stream',
      });
      for (let i = 0; i < 7; i++) queue.push(i);
      // 0, 1 with the handler; 5, 6 wait; 2, 3, 4 dropped, counted at once.
      expect(log.dropped).toEqual([2, 3, 4]);
      expect(log.skipped).toEqual([]);
      await handler.settle(1);
      expect(log.skipped).toEqual([]);
      await handler.settle(0);
      expect(log.delivered).toEqual([0, 1]);
      // Only the newest dropped one is kept for the position: the others are behind it anyway.
      expect(log.skipped).toEqual([4]);
      expect(handler.seen).toEqual([0, 1, 5, 6]);
    });

    it('close while in flight: pending promises that settle later are never reported delivered', async () => {
      const handler = heldHandler();
      const { queue, log } = setup({ deliver: handler.deliver, highWaterMark: 100, maxInFlight: 3 });
      for (let i = 0; i < 5; i++) queue.push(i);
      await handler.settle(0);
      queue.close();
      await handler.settle(1);
      await handler.settle(2, new Error('after close'));
      queue.push(9);
      expect(log.delivered).toEqual([0]);
      expect(log.errors).toEqual([]);
      expect(handler.seen).toEqual([0, 1, 2, 3]);
      expect(queue.inFlight).toBe(0);
    });
  });

  it('stays O(1) per item over a long run (head index compaction)', () => {
    const { queue, log } = setup({ highWaterMark: 1_000_000 });
    for (let i = 0; i < 200_000; i++) queue.push(i);
    expect(log.delivered).toHaveLength(200_000);
    expect(queue.length).toBe(0);
  });
});

describe('DeliveryQueue batches and unwanted events', () => {
  const clock = systemClock;

  /** A batch handler whose calls stay pending until the test settles them, oldest first. */
  function heldBatches() {
    const batches: number[][] = [];
    const pending: Array<() => void> = [];
    return {
      batches,
      deliverBatch: (items: number[]) => {
        batches.push([...items]);
        return new Promise<void>((resolve) => pending.push(resolve));
      },
      async settleOldest() {
        pending.shift()?.();
        await new Promise((resolve) => setImmediate(resolve));
      },
    };
  }

  it('hands full batches over in order and reports their events once the batch is acknowledged', async () => {
    const handler = heldBatches();
    const { queue, log } = setup({
      maxInFlight: 10,
      batch: { size: 3, waitMs: 60_000, clock },
      deliverBatch: handler.deliverBatch,
    });
    for (let i = 0; i < 6; i++) queue.push(i);
    expect(handler.batches).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    expect(log.delivered).toEqual([]);
    await handler.settleOldest();
    expect(log.delivered).toEqual([0, 1, 2]);
    await handler.settleOldest();
    expect(log.delivered).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('seals a batch that did not fill when its wait is up', async () => {
    const handler = heldBatches();
    const { queue } = setup({
      maxInFlight: 10,
      batch: { size: 100, waitMs: 20, clock },
      deliverBatch: handler.deliverBatch,
    });
    queue.push(1);
    queue.push(2);
    expect(handler.batches).toEqual([]);
    await waitFor(() => handler.batches.length === 1, 'the partial batch');
    expect(handler.batches).toEqual([[1, 2]]);
  });

  it('maxInFlight counts batches: the next batch is handed over only when one is acknowledged', async () => {
    const handler = heldBatches();
    const { queue } = setup({
      highWaterMark: 100,
      maxInFlight: 2,
      batch: { size: 2, waitMs: 60_000, clock },
      deliverBatch: handler.deliverBatch,
    });
    for (let i = 0; i < 8; i++) queue.push(i);
    expect(handler.batches).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(queue.length).toBe(4);
    await handler.settleOldest();
    expect(handler.batches).toHaveLength(3);
    expect(handler.batches[2]).toEqual([4, 5]);
  });

  it('an unwanted event never reaches the handler and completes in its place', async () => {
    const handler = heldBatches();
    const { queue, log } = setup({
      maxInFlight: 10,
      batch: { size: 2, waitMs: 60_000, clock },
      deliverBatch: handler.deliverBatch,
      wanted: (item) => item % 2 === 0,
    });
    for (let i = 0; i < 6; i++) queue.push(i);
    // 4 waits in a batch still filling; 1, 3 and 5 were never the handler's.
    expect(handler.batches).toEqual([[0, 2]]);
    // 1 and 3 wait behind the unacknowledged batch [0, 2]: the position may not pass them yet.
    expect(log.delivered).toEqual([]);
    await handler.settleOldest();
    // And 5 waits behind 4, whose batch is not acknowledged yet.
    expect(log.delivered).toEqual([0, 1, 2, 3]);
  });

  it('close drops a batch still filling: its events are never reported', async () => {
    const handler = heldBatches();
    const { queue, log } = setup({
      maxInFlight: 10,
      batch: { size: 5, waitMs: 20, clock },
      deliverBatch: handler.deliverBatch,
    });
    queue.push(1);
    queue.push(2);
    queue.close();
    // A later batch after the wait would prove the timer still ran; a fresh queue's wait is the evidence.
    const { queue: other } = setup({
      maxInFlight: 10,
      batch: { size: 5, waitMs: 20, clock },
      deliverBatch: handler.deliverBatch,
    });
    other.push(9);
    await waitFor(() => handler.batches.length === 1, 'the other batch');
    expect(handler.batches).toEqual([[9]]);
    expect(log.delivered).toEqual([]);
  });

  it('a synchronous batch handler under a burst of 200,000 events: no recursion, every event once', () => {
    const sizes: number[] = [];
    const { queue, log } = setup({
      highWaterMark: 1_000_000,
      maxInFlight: 1,
      batch: { size: 1, waitMs: 60_000, clock },
      deliverBatch: (items) => void sizes.push(items.length),
    });
    for (let i = 0; i < 200_000; i++) queue.push(i);
    expect(sizes).toHaveLength(200_000);
    expect(log.delivered).toHaveLength(200_000);
    expect(log.delivered.at(-1)).toBe(199_999);
  });
});

describe('DeliveryQueue prepare stage (media)', () => {
  /** A prepare step whose calls stay pending until the test makes a given event ready. */
  function heldPreparation() {
    const started: number[] = [];
    const ready = new Map<number, () => void>();
    return {
      started,
      prepare: (item: number) => {
        started.push(item);
        return new Promise<void>((resolve) => ready.set(item, resolve));
      },
      async finish(item: number) {
        ready.get(item)?.();
        await new Promise((resolve) => setImmediate(resolve));
      },
    };
  }

  it('prepares ahead of the handler and hands over in push order, whatever order preparation ends in', async () => {
    const stage = heldPreparation();
    const handler = slowHandler();
    const { queue, log } = setup({
      deliver: handler.deliver,
      prepare: stage.prepare,
      prepareAhead: 3,
      highWaterMark: 100,
    });
    for (let i = 0; i < 5; i++) queue.push(i);
    // Three prepared at once, the other two wait; nothing is the handler's yet.
    expect(stage.started).toEqual([0, 1, 2]);
    expect(queue.length).toBe(2);
    expect(queue.inFlight).toBe(3);
    await stage.finish(2);
    await stage.finish(1);
    expect(handler.seen).toEqual([]);
    await stage.finish(0);
    // maxInFlight 1 still bounds the handler: 0 is handed over, 1 and 2 wait for it, prepared.
    expect(handler.seen).toEqual([0]);
    // 0 left the stage for the handler: 3 started preparing in its place.
    expect(stage.started).toEqual([0, 1, 2, 3]);
    await handler.release();
    expect(handler.seen).toEqual([0, 1]);
    expect(log.delivered).toEqual([0]);
    expect(stage.started).toEqual([0, 1, 2, 3, 4]);
  });

  it('an unwanted event is never prepared and completes in its place', async () => {
    const stage = heldPreparation();
    const { queue, log } = setup({
      prepare: stage.prepare,
      wanted: (item) => item !== 1,
      highWaterMark: 100,
    });
    for (let i = 0; i < 3; i++) queue.push(i);
    expect(stage.started).toEqual([0, 2]);
    await stage.finish(2);
    expect(log.delivered).toEqual([]);
    await stage.finish(0);
    expect(log.delivered).toEqual([0, 1, 2]);
  });

  it('drop-oldest: an event dropped behind prepared ones passes only after they completed', async () => {
    const stage = heldPreparation();
    const { queue, log } = setup({
      prepare: stage.prepare,
      prepareAhead: 1,
      highWaterMark: 1,
      overflow: 'drop-oldest',
    });
    for (let i = 0; i < 3; i++) queue.push(i);
    // 0 is being prepared, 2 waits, 1 was dropped.
    expect(log.dropped).toEqual([1]);
    expect(log.skipped).toEqual([]);
    await stage.finish(0);
    expect(log.delivered).toEqual([0]);
    expect(log.skipped).toEqual([1]);
    await stage.finish(2);
    expect(log.delivered).toEqual([0, 2]);
  });

  it('a stage deeper than the capacity of the queue fills only to it, and still hands everything over', async () => {
    const stage = heldPreparation();
    const handler = slowHandler();
    // Capacity: 1 in flight + a mark of 1 = 2 events between the waiting line and the report.
    const { queue, log } = setup({
      deliver: handler.deliver,
      prepare: stage.prepare,
      prepareAhead: 8,
      highWaterMark: 1,
      overflow: 'drop-oldest',
    });
    for (let i = 0; i < 3; i++) queue.push(i);
    expect(stage.started).toEqual([0, 1]);
    await stage.finish(0);
    await stage.finish(1);
    expect(handler.seen).toEqual([0]);
    await handler.release();
    expect(handler.seen).toEqual([0, 1]);
    await stage.finish(2);
    await handler.release();
    await handler.release();
    expect(log.delivered).toEqual([0, 1, 2]);
  });

  it('close drops what is being prepared: it is never handed over or reported', async () => {
    const stage = heldPreparation();
    const handler = slowHandler();
    const { queue, log } = setup({ deliver: handler.deliver, prepare: stage.prepare });
    queue.push(1);
    queue.close();
    await stage.finish(1);
    queue.push(2);
    expect(handler.seen).toEqual([]);
    expect(log.delivered).toEqual([]);
  });
});
