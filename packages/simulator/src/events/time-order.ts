/**
 * Live record positions in time order: by second, rows of one second by position (= record id).
 * History reads it by rank. {@link LiveRecords} keeps one over every record and one per task, so
 * a page of one task's history walks that task's rows only: a catch-up asks for one task at a
 * time, and walking every task's rows to find one task's cost a 50,000-event storm a quarter of
 * its CPU (the simulator's, not the client's).
 *
 * It stays cheap because most records arrive in time order: those are appended to its end. The
 * others wait in a small pending list and are merged in (backwards, so only the records newer
 * than the oldest pending one move) before the next read, or when the list grows.
 */

const PENDING_MERGE_AT = 8192;

export class TimeOrder {
  /** Positions sorted by (second, position); `#count` of them are in place. */
  #order = new Int32Array(64);
  #count = 0;
  #tailSecond = Number.NEGATIVE_INFINITY;
  #tailPosition = -1;
  /** Positions added older than the tail, not merged yet (in position order). */
  #pending: number[] = [];
  /** The second of each position: the owner's array, which it may replace as it grows. */
  readonly #secondOf: () => Float64Array;

  constructor(secondOf: () => Float64Array) {
    this.#secondOf = secondOf;
  }

  /** Records in place (after merge()). */
  get count(): number {
    return this.#count;
  }

  /** Adds the record at `position` (larger than every position added before). */
  add(position: number): void {
    const second = this.#secondOf()[position] as number;
    // Rows of one second stay in position (= record id) order, whichever showed first.
    if (second > this.#tailSecond || (second === this.#tailSecond && position > this.#tailPosition)) {
      if (this.#count === this.#order.length) this.#order = resized(this.#order, this.#order.length * 2);
      this.#order[this.#count++] = position;
      this.#tailSecond = second;
      this.#tailPosition = position;
    } else {
      this.#pending.push(position);
      if (this.#pending.length >= PENDING_MERGE_AT) this.merge();
    }
  }

  /** Merges the pending records in: call before reading by rank. */
  merge(): void {
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    const second = this.#secondOf();
    // Equal seconds in position (= record id) order: rows of a varying lag show in any order.
    pending.sort((a, b) => (second[a] as number) - (second[b] as number) || a - b);
    const total = this.#count + pending.length;
    if (total > this.#order.length)
      this.#order = resized(this.#order, Math.max(total, this.#order.length * 2));
    const order = this.#order;
    let i = this.#count - 1;
    let j = pending.length - 1;
    let k = total - 1;
    while (j >= 0) {
      const mine = pending[j] as number;
      const theirs = i >= 0 ? (order[i] as number) : -1;
      if (
        theirs >= 0 &&
        ((second[theirs] as number) > (second[mine] as number) ||
          ((second[theirs] as number) === (second[mine] as number) && theirs > mine))
      ) {
        order[k--] = theirs;
        i--;
      } else {
        order[k--] = mine;
        j--;
      }
    }
    this.#count = total;
    const tail = order[total - 1] as number;
    this.#tailSecond = second[tail] as number;
    this.#tailPosition = tail;
  }

  /** Position of the record at `rank`. */
  positionAt(rank: number): number {
    return this.#order[rank] as number;
  }

  /** Second of the record at `rank`. */
  secondAt(rank: number): number {
    return this.#secondOf()[this.#order[rank] as number] as number;
  }

  /** First rank whose second is >= `second`. */
  firstAtOrAfter(second: number): number {
    return this.#firstWhere((at) => at >= second);
  }

  /** First rank whose second is > `second`. */
  firstAfter(second: number): number {
    return this.#firstWhere((at) => at > second);
  }

  #firstWhere(holds: (second: number) => boolean): number {
    const seconds = this.#secondOf();
    const order = this.#order;
    let lo = 0;
    let hi = this.#count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (holds(seconds[order[mid] as number] as number)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

export function resized<T extends Int32Array | Float64Array | Uint8Array>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}
