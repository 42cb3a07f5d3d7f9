import type { Clock } from '@observation-service/core/portable';
import { describe, expect, test } from 'vitest';
import { EventBatcher } from '../nodes/ObservationTrigger/event-batcher.ts';
import { n8nClock } from '../shared/n8n-clock.ts';

/** n8n's own timer, with a record of every wait the batcher started and whether it was ended. */
function watchedClock() {
  const waits: AbortSignal[] = [];
  const clock: Clock = {
    now: n8nClock.now,
    sleep(ms, signal) {
      if (signal) waits.push(signal);
      return n8nClock.sleep(ms, signal);
    },
  };
  return { clock, waits };
}

function setup(size: number, waitMs: number) {
  const emitted: number[][] = [];
  const { clock, waits } = watchedClock();
  const batcher = new EventBatcher<number>({ size, waitMs, clock, emit: (items) => emitted.push(items) });
  return { batcher, emitted, waits };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('EventBatcher', () => {
  test('a batch fills by size: emitted at once, in order, and each add resolves with its batch', async () => {
    const { batcher, emitted, waits } = setup(3, 60_000);
    const settled: number[] = [];
    const adds = [1, 2, 3, 4, 5, 6, 7].map((item) => batcher.add(item).then(() => settled.push(item)));
    await Promise.all(adds.slice(0, 6));
    expect(emitted).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(settled).toEqual([1, 2, 3, 4, 5, 6]);
    // The full batches ended their wait; the third one (7) is still open.
    expect(waits.map((signal) => signal.aborted)).toEqual([true, true, false]);
    batcher.close();
    expect(waits[2]?.aborted).toBe(true);
  });

  test('a partial batch goes out when the wait after its first item ends', async () => {
    const { batcher, emitted } = setup(100, 40);
    const started = n8nClock.now();
    const first = batcher.add(1);
    await turn();
    void batcher.add(2);
    await first;
    expect(n8nClock.now() - started).toBeGreaterThanOrEqual(30);
    expect(emitted).toEqual([[1, 2]]);
    // The next item opens a new batch with its own wait.
    await batcher.add(3);
    expect(emitted).toEqual([[1, 2], [3]]);
  });

  test('items still being prepared keep their place, and batches go out in order', async () => {
    const { batcher, emitted } = setup(2, 60_000);
    const slow = deferred<number>();
    const firstBatch = batcher.add(slow.promise);
    void batcher.add(2);
    const secondBatch = batcher.add(3);
    void batcher.add(Promise.resolve(4));
    // The second batch is ready first, but waits for the first.
    await turn();
    expect(emitted).toEqual([]);
    slow.resolve(1);
    await Promise.all([firstBatch, secondBatch]);
    expect(emitted).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  test('size 1: every item is its own batch, with no wait started', async () => {
    const { batcher, emitted, waits } = setup(1, 1_000);
    await Promise.all([batcher.add(1), batcher.add(2)]);
    expect(emitted).toEqual([[1], [2]]);
    expect(waits).toEqual([]);
  });

  test('close drops the open batch and one still being prepared: nothing emitted, their adds never settle', async () => {
    const { batcher, emitted, waits } = setup(2, 60_000);
    const slow = deferred<number>();
    let settled = 0;
    void batcher.add(slow.promise).then(() => settled++);
    void batcher.add(2).then(() => settled++);
    void batcher.add(3).then(() => settled++);
    batcher.close();
    expect(waits.every((signal) => signal.aborted)).toBe(true);
    slow.resolve(1);
    await slow.promise;
    await turn();
    void batcher.add(4).then(() => settled++);
    await turn();
    expect(emitted).toEqual([]);
    expect(settled).toBe(0);
  });

  test('a failing emit rejects that batch only; later batches still go out', async () => {
    const emitted: number[][] = [];
    const batcher = new EventBatcher<number>({
      size: 1,
      waitMs: 1_000,
      clock: n8nClock,
      emit: (items) => {
        if (items[0] === 1) throw new Error('emit failed');
        emitted.push(items);
      },
    });
    const failed = batcher.add(1);
    const next = batcher.add(2);
    await expect(failed).rejects.toThrow('emit failed');
    await next;
    expect(emitted).toEqual([[2]]);
  });
});
