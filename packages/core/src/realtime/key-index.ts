import type { EventKey } from './event-key.js';

const firstSlots = 1 << 12;
const maxSlots = 1 << 18;

/**
 * Admission order by event key, for the keys admission remembers. Every live event is looked up
 * and added here, and most keys are record ids that follow one another (the extended form), so
 * ids go into a direct-mapped table (an id's slot is its low bits: consecutive ids never collide)
 * that grows with the keys held; text keys (the basic form) and the rare colliding id go into a
 * Map. A table lookup is a few array reads where a Map of 100,000 entries hashes and probes.
 */
export class KeyIndex {
  private ids: number[] | undefined;
  private orders: number[] | undefined;
  private mask = 0;
  /** Ids in the table. */
  private held = 0;
  private readonly others = new Map<EventKey, number>();

  get size(): number {
    return this.held + this.others.size;
  }

  get(key: EventKey): number | undefined {
    if (typeof key === 'number' && this.ids !== undefined) {
      const slot = key & this.mask;
      if (this.ids[slot] === key) return (this.orders as number[])[slot];
    }
    return this.others.get(key);
  }

  /** Adds a key that is not held yet. */
  add(key: EventKey, order: number): void {
    if (typeof key !== 'number' || key <= 0) {
      this.others.set(key, order);
      return;
    }
    if (this.ids === undefined || this.held * 2 >= this.ids.length) this.grow();
    const ids = this.ids as number[];
    const slot = key & this.mask;
    if (ids[slot] === 0) {
      ids[slot] = key;
      (this.orders as number[])[slot] = order;
      this.held++;
    } else {
      this.others.set(key, order);
    }
  }

  delete(key: EventKey): void {
    if (typeof key === 'number' && this.ids !== undefined) {
      const slot = key & this.mask;
      if (this.ids[slot] === key) {
        this.ids[slot] = 0;
        this.held--;
        return;
      }
    }
    this.others.delete(key);
  }

  /** Doubles the table (up to its limit) and moves the ids held into it. */
  private grow(): void {
    const old = this.ids;
    const size = old === undefined ? firstSlots : Math.min(old.length * 2, maxSlots);
    if (old !== undefined && size === old.length) return;
    const oldOrders = this.orders as number[];
    // Plain arrays of small integers live on the JavaScript heap: typed arrays' buffers would be
    // external memory, whose growth V8 answers with full collections.
    this.ids = new Array<number>(size).fill(0);
    this.orders = new Array<number>(size).fill(0);
    this.mask = size - 1;
    this.held = 0;
    if (old === undefined) return;
    for (let slot = 0; slot < old.length; slot++) {
      const id = old[slot] as number;
      if (id !== 0) this.add(id, oldOrders[slot] as number);
    }
  }
}
