import type { EventKey } from './event-key.js';

/**
 * The keys an admission remembers, each with its time and admission order, oldest first.
 *
 * Every live event adds one, and on a busy socket a hundred thousand are held at once, so what
 * each costs matters more than anything else here: memory a process has not touched yet is slow
 * to get (page faults), and a table that grows with the keys touches new memory all the time.
 * Most keys are record ids that follow one another within one wire second (the extended form),
 * so they are held as runs: ids `first … first + count - 1`, one time, consecutive orders. Such a
 * key costs no memory at all, and runs are sorted by id, so a lookup is a binary search.
 *
 * A key that cannot join the runs (a text key of the basic form, an id smaller than one held
 * before it: out of order, or a restart's) is held singly, in its own queue and a Map.
 */
export class AdmittedKeys {
  // Runs, oldest first; ids grow from run to run (see `add`).
  private runFirst: number[] = [];
  private runCount: number[] = [];
  private runTime: number[] = [];
  private runOrder: number[] = [];
  private runHead = 0;
  /** Largest id ever held in a run: only a larger one starts or extends a run. */
  private topId = Number.NEGATIVE_INFINITY;
  // Single keys, oldest first, and their orders by key.
  private singleKeys: EventKey[] = [];
  private singleTimes: number[] = [];
  private singleOrders: number[] = [];
  private singleHead = 0;
  private readonly singles = new Map<EventKey, number>();
  private held = 0;

  get size(): number {
    return this.held;
  }

  /** Admission order of `key`, or undefined when it is not held. */
  orderOf(key: EventKey): number | undefined {
    if (typeof key === 'number' && key <= this.topId) {
      const run = this.runAt(key);
      if (run >= 0) return (this.runOrder[run] as number) + key - (this.runFirst[run] as number);
    }
    // Ids that follow one another never reach the Map: no lookup while it is empty.
    return this.singles.size === 0 ? undefined : this.singles.get(key);
  }

  /** Holds `key` (not held yet) admitted as `order`, larger than every order held. */
  add(key: EventKey, timeMs: number, order: number): void {
    this.held++;
    if (typeof key === 'number' && key > this.topId) {
      this.topId = key;
      const last = this.runFirst.length - 1;
      if (
        last >= this.runHead &&
        this.runTime[last] === timeMs &&
        (this.runFirst[last] as number) + (this.runCount[last] as number) === key &&
        (this.runOrder[last] as number) + (this.runCount[last] as number) === order
      ) {
        this.runCount[last] = (this.runCount[last] as number) + 1;
        return;
      }
      this.runFirst.push(key);
      this.runCount.push(1);
      this.runTime.push(timeMs);
      this.runOrder.push(order);
      return;
    }
    this.singleKeys.push(key);
    this.singleTimes.push(timeMs);
    this.singleOrders.push(order);
    this.singles.set(key, order);
  }

  /** Time of the oldest key held (undefined when none). */
  oldestTime(): number | undefined {
    return this.oldestIsRun() ? this.runTime[this.runHead] : this.singleTimes[this.singleHead];
  }

  /** Admission order of the oldest key held. */
  oldestOrder(): number {
    return (this.oldestIsRun() ? this.runOrder[this.runHead] : this.singleOrders[this.singleHead]) as number;
  }

  /**
   * How many of the oldest keys share its time and follow it in admission order (at least 1): a
   * run's orders are consecutive, so no single key falls inside it.
   */
  oldestCount(): number {
    return this.oldestIsRun() ? (this.runCount[this.runHead] as number) : 1;
  }

  /** Forgets the `count` oldest keys (at most `oldestCount()`). */
  dropOldest(count: number): void {
    this.held -= count;
    if (!this.oldestIsRun()) {
      this.singles.delete(this.singleKeys[this.singleHead] as EventKey);
      this.singleHead++;
      if (this.singleHead > 4096 && this.singleHead * 2 > this.singleKeys.length) {
        this.singleKeys = this.singleKeys.slice(this.singleHead);
        this.singleTimes = this.singleTimes.slice(this.singleHead);
        this.singleOrders = this.singleOrders.slice(this.singleHead);
        this.singleHead = 0;
      }
      return;
    }
    const head = this.runHead;
    if (count < (this.runCount[head] as number)) {
      this.runFirst[head] = (this.runFirst[head] as number) + count;
      this.runOrder[head] = (this.runOrder[head] as number) + count;
      this.runCount[head] = (this.runCount[head] as number) - count;
      return;
    }
    this.runHead++;
    if (this.runHead > 4096 && this.runHead * 2 > this.runFirst.length) {
      this.runFirst = this.runFirst.slice(this.runHead);
      this.runCount = this.runCount.slice(this.runHead);
      this.runTime = this.runTime.slice(this.runHead);
      this.runOrder = this.runOrder.slice(this.runHead);
      this.runHead = 0;
    }
  }

  /** The keys admitted up to `lastOrder` whose time is `fromMs` or later, in admission order. */
  keysFrom(fromMs: number, lastOrder: number): EventKey[] {
    const keys: EventKey[] = [];
    let run = this.runHead;
    let single = this.singleHead;
    for (;;) {
      const runOrder = this.runOrder[run];
      const singleOrder = this.singleOrders[single];
      if (runOrder !== undefined && (singleOrder === undefined || runOrder < singleOrder)) {
        if (runOrder > lastOrder) break;
        // A run's orders are consecutive, so no single key falls inside it.
        if ((this.runTime[run] as number) >= fromMs) {
          const first = this.runFirst[run] as number;
          const end = Math.min(runOrder + (this.runCount[run] as number), lastOrder + 1);
          for (let order = runOrder; order < end; order++) keys.push(first + order - runOrder);
        }
        run++;
        continue;
      }
      if (singleOrder === undefined || singleOrder > lastOrder) break;
      if ((this.singleTimes[single] as number) >= fromMs) keys.push(this.singleKeys[single] as EventKey);
      single++;
    }
    return keys;
  }

  private oldestIsRun(): boolean {
    const run = this.runOrder[this.runHead];
    if (run === undefined) return false;
    const single = this.singleOrders[this.singleHead];
    return single === undefined || run < single;
  }

  /** Index of the run holding `id`, or -1. */
  private runAt(id: number): number {
    let low = this.runHead;
    let high = this.runFirst.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const first = this.runFirst[middle] as number;
      if (id < first) high = middle - 1;
      else if (id >= first + (this.runCount[middle] as number)) low = middle + 1;
      else return middle;
    }
    return -1;
  }
}
