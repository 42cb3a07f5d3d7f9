/**
 * The live part of history: each live record's task and second in record-id order (the order
 * they were published), plus an index of the same records in time order.
 *
 * Why two orders: a real pipeline records an event when its analysis finishes, not when it
 * occurred, so ids grow in publish order while timestamps do not (per-camera latency, VLM
 * answers published minutes late). History is served in time order, so it needs the index.
 *
 * The index stays cheap because most records arrive in time order: those are appended to its
 * end. The others wait in a small pending list and are merged in (backwards, so only the
 * records newer than the oldest pending one move) before the next read, or when the list grows.
 */

const PENDING_MERGE_AT = 8192;

export class LiveRecords {
  #task = new Int32Array(1024);
  #second = new Float64Array(1024);
  #count = 0;
  /** Positions sorted by (second, position); `#ordered` of them are in place. */
  #order = new Int32Array(1024);
  #ordered = 0;
  #tailSecond = Number.NEGATIVE_INFINITY;
  /** Positions appended older than the tail of `#order`, not merged yet (in position order). */
  #pending: number[] = [];
  #newestSecond = Number.NEGATIVE_INFINITY;

  get count(): number {
    return this.#count;
  }

  /** The newest second recorded so far (-Infinity before the first record). */
  get newestSecond(): number {
    return this.#newestSecond;
  }

  /** Stores a record; returns its position (record id = seeded count + position + 1). */
  append(taskId: number, second: number): number {
    const position = this.#count;
    if (position === this.#task.length) this.#grow();
    this.#task[position] = taskId;
    this.#second[position] = second;
    this.#count++;
    if (second > this.#newestSecond) this.#newestSecond = second;
    if (second >= this.#tailSecond) {
      if (this.#ordered === this.#order.length) this.#order = resized(this.#order, this.#order.length * 2);
      this.#order[this.#ordered++] = position;
      this.#tailSecond = second;
    } else {
      this.#pending.push(position);
      if (this.#pending.length >= PENDING_MERGE_AT) this.settle();
    }
    return position;
  }

  taskAt(position: number): number {
    return this.#task[position] as number;
  }

  secondAt(position: number): number {
    return this.#second[position] as number;
  }

  /** Merges pending records into the time index; call before reading it by rank. */
  settle(): void {
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    const second = this.#second;
    // Stable: equal seconds keep position (= record id) order.
    pending.sort((a, b) => (second[a] as number) - (second[b] as number));
    const total = this.#ordered + pending.length;
    if (total > this.#order.length)
      this.#order = resized(this.#order, Math.max(total, this.#order.length * 2));
    const order = this.#order;
    let i = this.#ordered - 1;
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
    this.#ordered = total;
  }

  /** Position of the record at `rank` in time order (after settle()). */
  positionAtRank(rank: number): number {
    return this.#order[rank] as number;
  }

  /** Second of the record at `rank` in time order (after settle()). */
  secondAtRank(rank: number): number {
    return this.#second[this.#order[rank] as number] as number;
  }

  /** First rank whose second is >= `second` (after settle()). */
  firstRankAtOrAfter(second: number): number {
    let lo = 0;
    let hi = this.#ordered;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.secondAtRank(mid) < second) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First rank whose second is > `second` (after settle()). */
  firstRankAfter(second: number): number {
    let lo = 0;
    let hi = this.#ordered;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.secondAtRank(mid) <= second) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #grow(): void {
    this.#task = resized(this.#task, this.#task.length * 2);
    this.#second = resized(this.#second, this.#second.length * 2);
  }
}

function resized<T extends Int32Array | Float64Array>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}
