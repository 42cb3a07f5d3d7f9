import { describe, expect, it } from 'vitest';
import { AdmittedKeys } from './admitted-keys.js';
import type { EventKey } from './event-key.js';

/** The plain model AdmittedKeys must agree with: one entry per key, oldest first. */
class ModelKeys {
  entries: { key: EventKey; time: number; order: number }[] = [];
  readonly orders = new Map<EventKey, number>();
  push(key: EventKey, time: number, order: number) {
    this.entries.push({ key, time, order });
    this.orders.set(key, order);
  }
  dropOldest(count: number) {
    for (const entry of this.entries.splice(0, count)) this.orders.delete(entry.key);
  }
  orderOf(key: EventKey) {
    return this.orders.get(key);
  }
  keysFrom(fromMs: number, lastOrder: number) {
    return this.entries.filter((e) => e.order <= lastOrder && e.time >= fromMs).map((e) => e.key);
  }
}

/** A small deterministic generator (the same cases on every run). */
function random(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % below;
  };
}

describe('AdmittedKeys', () => {
  it('holds ids that follow one another in one second as one run, and finds each', () => {
    const keys = new AdmittedKeys();
    for (let id = 100; id < 110; id++) keys.add(id, 5_000, id - 100);
    keys.add(110, 6_000, 10); // a new second: a new run
    keys.add(3, 6_000, 11); // smaller than an id held: held singly
    keys.add('basic|1', 6_000, 12);
    expect(keys.size).toBe(13);
    expect(keys.orderOf(104)).toBe(4);
    expect(keys.orderOf(110)).toBe(10);
    expect(keys.orderOf(3)).toBe(11);
    expect(keys.orderOf('basic|1')).toBe(12);
    expect(keys.orderOf(111)).toBeUndefined();
    expect(keys.orderOf(99)).toBeUndefined();
    expect(keys.oldestCount()).toBe(10);
  });

  it('forgets the oldest keys in admission order, part of a run at a time', () => {
    const keys = new AdmittedKeys();
    keys.add('a', 1_000, 0);
    for (let id = 1; id <= 5; id++) keys.add(id, 2_000, id);
    keys.add('b', 2_000, 6);
    expect([keys.oldestTime(), keys.oldestOrder(), keys.oldestCount()]).toEqual([1_000, 0, 1]);
    keys.dropOldest(1);
    expect([keys.oldestTime(), keys.oldestOrder(), keys.oldestCount()]).toEqual([2_000, 1, 5]);
    keys.dropOldest(2);
    expect(keys.orderOf(2)).toBeUndefined();
    expect(keys.orderOf(3)).toBe(3);
    expect([keys.oldestOrder(), keys.oldestCount()]).toEqual([3, 3]);
    keys.dropOldest(3);
    expect(keys.oldestOrder()).toBe(6);
    keys.dropOldest(1);
    expect(keys.size).toBe(0);
    expect(keys.oldestTime()).toBeUndefined();
  });

  it('lists the keys from a time up to an order, in admission order, runs and single keys mixed', () => {
    const keys = new AdmittedKeys();
    keys.add(10, 1_000, 0);
    keys.add(11, 1_000, 1);
    keys.add('x', 2_000, 2);
    keys.add(12, 2_000, 3);
    keys.add(13, 2_000, 4);
    keys.add(5, 2_000, 5);
    expect(keys.keysFrom(0, 5)).toEqual([10, 11, 'x', 12, 13, 5]);
    expect(keys.keysFrom(2_000, 4)).toEqual(['x', 12, 13]);
    expect(keys.keysFrom(0, 3)).toEqual([10, 11, 'x', 12]);
  });

  it('agrees with a plain list over long random admissions, drops and reads', () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      const keys = new AdmittedKeys();
      const model = new ModelKeys();
      let order = 0;
      let id = 1_000;
      let time = 0;
      for (let step = 0; step < 30_000; step++) {
        const roll = next(100);
        if (roll < 70) {
          // Mostly the next id, sometimes a gap, an older id or a text key; the second moves on now and then.
          if (next(50) === 0) time += 1_000;
          const kind = next(20);
          let key: EventKey;
          if (kind === 0) key = `t${next(400)}`;
          else if (kind === 1) key = id - 1 - next(300);
          else {
            id += kind === 2 ? 3 : 1;
            key = id;
          }
          if (model.orderOf(key) !== undefined) {
            expect(keys.orderOf(key)).toBe(model.orderOf(key));
            continue;
          }
          expect(keys.orderOf(key)).toBeUndefined();
          keys.add(key, time, order);
          model.push(key, time, order);
          order++;
        } else if (roll < 90 && model.entries.length > 0) {
          const [oldest] = model.entries;
          expect([keys.oldestTime(), keys.oldestOrder()]).toEqual([oldest?.time, oldest?.order]);
          const drop = 1 + next(keys.oldestCount());
          keys.dropOldest(drop);
          model.dropOldest(drop);
        } else {
          const probe = id - next(600);
          expect(keys.orderOf(probe)).toBe(model.orderOf(probe));
          const from = time - next(3) * 1_000;
          const last = order - 1 - next(20);
          expect(keys.keysFrom(from, last)).toEqual(model.keysFrom(from, last));
        }
        expect(keys.size).toBe(model.entries.length);
      }
    }
  });

  it('keeps its answers after forgetting more than it compacts at once', () => {
    const keys = new AdmittedKeys();
    // Every id in its own second, and a text key between: many runs and single keys to compact.
    for (let order = 0; order < 20_000; order += 2) {
      keys.add(order, order * 1_000, order);
      keys.add(`t${order}`, order * 1_000, order + 1);
    }
    for (let dropped = 0; dropped < 15_000; dropped++) keys.dropOldest(1);
    expect(keys.size).toBe(5_000);
    expect(keys.orderOf(15_000)).toBe(15_000);
    expect(keys.orderOf('t15000')).toBe(15_001);
    expect(keys.orderOf(14_998)).toBeUndefined();
    expect(keys.keysFrom(19_996_000, 20_000)).toEqual([19_996, 't19996', 19_998, 't19998']);
  });
});
