import type { PositionStore, StoredPosition } from '@observation-service/core/portable';
import { describe, expect, test } from 'vitest';
import { ConfirmedPositionStore } from '../nodes/ObservationTrigger/confirmed-position';

/** A position as core hands it over; `n` tells them apart. */
const position = (n: number) => ({ savedAt: `t${n}` }) as unknown as StoredPosition;

function memory() {
  const saved: string[] = [];
  const store: PositionStore = { load: () => undefined, save: (p) => void saved.push(p.savedAt) };
  return { saved, store };
}

describe('ConfirmedPositionStore', () => {
  test('a position reaches the store only once every execution emitted before it finished, in order', async () => {
    const { saved, store } = memory();
    const confirmed = new ConfirmedPositionStore(store);
    const first = confirmed.emitted();
    const one = confirmed.save(position(1));
    const second = confirmed.emitted();
    const two = confirmed.save(position(2));
    // The later execution finishes first: neither position may be stored yet.
    second.resolve({} as never);
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(saved).toEqual([]);
    first.resolve({} as never);
    await Promise.all([one, two]);
    expect(saved).toEqual(['t1', 't2']);
  });

  test('a failed or refused execution (rejected done promise) still lets the position move', async () => {
    const { saved, store } = memory();
    const confirmed = new ConfirmedPositionStore(store);
    const done = confirmed.emitted();
    const pending = confirmed.save(position(1));
    done.reject(new Error('execution failed'));
    await pending;
    expect(saved).toEqual(['t1']);
  });
});

describe('ConfirmedPositionStore.room (backpressure)', () => {
  test('no wait below the limit; at the limit callers wait and are let through in order as executions finish', async () => {
    const { store } = memory();
    const confirmed = new ConfirmedPositionStore(store, 2);
    expect(confirmed.room()).toBeUndefined();
    const first = confirmed.emitted();
    const second = confirmed.emitted();
    const order: string[] = [];
    const a = confirmed.room()?.then(() => order.push('a'));
    // Behind a waiter, even a caller that would find room waits its turn.
    const b = confirmed.room()?.then(() => order.push('b'));
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    first.resolve({} as never);
    await a;
    expect(order).toEqual(['a']);
    confirmed.emitted();
    second.reject(new Error('failed'));
    await b;
    expect(order).toEqual(['a', 'b']);
  });
});
