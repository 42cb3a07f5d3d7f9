import type { EventKey } from './event-key.js';

/**
 * Remembers the keys of recently accepted events so the overlap between history and the live
 * socket is delivered once. Memory is bounded twice: keys older than `retainMs` before the newest
 * event are forgotten (a catch-up never reaches further back than that), and at most `capacity`
 * keys are kept whatever their age.
 *
 * On the hot path of every live event, so: one Map entry per key (value = acceptance order) and
 * a FIFO of keys and times for eviction, with no allocation beyond the key itself.
 */
export class DedupeWindow {
  private readonly seen = new Map<EventKey, number>();
  private keys: EventKey[] = [];
  private times: number[] = [];
  private head = 0;
  private newestMs = Number.NEGATIVE_INFINITY;
  private counter = 0;

  constructor(
    private readonly retainMs: number,
    private readonly capacity: number,
  ) {}

  /** Records `key`; false when it was already there (a duplicate). */
  add(key: EventKey, timeMs: number): boolean {
    if (this.seen.has(key)) return false;
    this.seen.set(key, this.counter++);
    this.keys.push(key);
    this.times.push(timeMs);
    if (timeMs > this.newestMs) this.newestMs = timeMs;
    this.evict();
    return true;
  }

  has(key: EventKey): boolean {
    return this.seen.has(key);
  }

  /** Position of `key` in acceptance order (larger = accepted later), or undefined when unknown. */
  orderOf(key: EventKey): number | undefined {
    return this.seen.get(key);
  }

  /** Time of the newest accepted event, or undefined before the first. */
  get newest(): number | undefined {
    return this.newestMs === Number.NEGATIVE_INFINITY ? undefined : this.newestMs;
  }

  get size(): number {
    return this.seen.size;
  }

  private evict(): void {
    // Acceptance order is close to time order, so the oldest keys sit at the front of the FIFO.
    const oldestKept = this.newestMs - this.retainMs;
    while (
      this.head < this.keys.length &&
      (this.seen.size > this.capacity || (this.times[this.head] as number) < oldestKept)
    ) {
      this.seen.delete(this.keys[this.head] as EventKey);
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
