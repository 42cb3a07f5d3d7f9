/**
 * Remembers the keys of recently accepted events so the overlap between history and the live
 * socket is delivered once. Memory is bounded twice: keys older than `retainMs` before the newest
 * event are forgotten (a backfill never reaches further back than that), and at most `capacity`
 * keys are kept whatever their age.
 */
export class DedupeWindow {
  // Map keeps insertion order, which is close to time order, so eviction works from the front.
  private readonly seen = new Map<string, { time: number; order: number }>();
  private newestMs = Number.NEGATIVE_INFINITY;
  private counter = 0;

  constructor(
    private readonly retainMs: number,
    private readonly capacity: number,
  ) {}

  /** Records `key`; false when it was already there (a duplicate). */
  add(key: string, timeMs: number): boolean {
    if (this.seen.has(key)) return false;
    this.seen.set(key, { time: timeMs, order: this.counter++ });
    if (timeMs > this.newestMs) this.newestMs = timeMs;
    this.evict();
    return true;
  }

  has(key: string): boolean {
    return this.seen.has(key);
  }

  /** Position of `key` in acceptance order (larger = accepted later), or undefined when unknown. */
  orderOf(key: string): number | undefined {
    return this.seen.get(key)?.order;
  }

  /** Time of the newest accepted event, or undefined before the first. */
  get newest(): number | undefined {
    return this.newestMs === Number.NEGATIVE_INFINITY ? undefined : this.newestMs;
  }

  get size(): number {
    return this.seen.size;
  }

  private evict(): void {
    const oldestKept = this.newestMs - this.retainMs;
    for (const [key, entry] of this.seen) {
      if (this.seen.size > this.capacity || entry.time < oldestKept) this.seen.delete(key);
      else break;
    }
  }
}
