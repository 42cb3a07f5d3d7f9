import { describe, expect, it } from 'vitest';
import { DeliveryQueue, type DeliveryQueueOptions } from './delivery-queue.js';

function setup(overrides: Partial<DeliveryQueueOptions<number>> = {}) {
  const log = {
    delivered: [] as number[],
    dropped: [] as number[],
    pressure: [] as boolean[],
    errors: [] as unknown[],
  };
  const queue = new DeliveryQueue<number>({
    highWaterMark: 4,
    overflow: 'pause',
    deliver: () => {},
    onDelivered: (item) => log.delivered.push(item),
    onHandlerError: (error) => log.errors.push(error),
    onDropped: (item) => log.dropped.push(item),
    onPressure: (paused) => log.pressure.push(paused),
    ...overrides,
  });
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

  it('stays O(1) per item over a long run (head index compaction)', () => {
    const { queue, log } = setup({ highWaterMark: 1_000_000 });
    for (let i = 0; i < 200_000; i++) queue.push(i);
    expect(log.delivered).toHaveLength(200_000);
    expect(queue.length).toBe(0);
  });
});
