/**
 * The live part of history: each live record's task, second and push time in record-id order
 * (the order they were published), plus an index of the visible records in time order.
 *
 * Why two orders: a real pipeline records an event when its analysis finishes, not when it
 * occurred, so ids grow in publish order while timestamps do not (per-camera latency, VLM
 * answers published minutes late). History is served in time order, so it needs the index.
 *
 * Why push times: history may lag the live feed (`historyLagMs`, a search index refreshing every
 * second). Push times grow with the record id, so the records visible at any moment are a prefix
 * of positions, found by binary search; only that prefix is indexed. A record once indexed stays
 * visible, as a row once searchable stays so when an index's refresh interval is raised.
 *
 * The index stays cheap because most records arrive in time order: those are appended to its
 * end. The others wait in a small pending list and are merged in (backwards, so only the
 * records newer than the oldest pending one move) before the next read, or when the list grows.
 */

const PENDING_MERGE_AT = 8192;

export class LiveRecords {
  #task = new Int32Array(1024);
  #second = new Float64Array(1024);
  /** When each record was handed to the sockets (epoch ms, never decreasing); valid below `#stamped`. */
  #pushedMs = new Float64Array(1024);
  #count = 0;
  #stamped = 0;
  /** Positions below this are in the time index (or pending for it). */
  #indexed = 0;
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

  /** Records in the time index after the last settle(): what history shows. */
  get indexedCount(): number {
    return this.#ordered;
  }

  /**
   * Stores a record; returns its position (record id = seeded count + position + 1). It is not
   * in the time index (history) until it has been stamped pushed and settle() lets it in.
   */
  append(taskId: number, second: number): number {
    const position = this.#count;
    if (position === this.#task.length) this.#grow();
    this.#task[position] = taskId;
    this.#second[position] = second;
    this.#count++;
    if (second > this.#newestSecond) this.#newestSecond = second;
    return position;
  }

  /** Marks every record appended since the last call as pushed at `ms`. */
  stampPushed(ms: number): void {
    const last = this.#stamped > 0 ? (this.#pushedMs[this.#stamped - 1] as number) : ms;
    const at = Math.max(ms, last);
    this.#pushedMs.fill(at, this.#stamped, this.#count);
    this.#stamped = this.#count;
  }

  /** Positions below the returned one were pushed at or before `cutoffMs`. */
  pushedUpTo(cutoffMs: number): number {
    let lo = this.#indexed;
    let hi = this.#stamped;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#pushedMs[mid] as number) <= cutoffMs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #index(position: number): void {
    const second = this.#second[position] as number;
    if (second >= this.#tailSecond) {
      if (this.#ordered === this.#order.length) this.#order = resized(this.#order, this.#order.length * 2);
      this.#order[this.#ordered++] = position;
      this.#tailSecond = second;
    } else {
      this.#pending.push(position);
      if (this.#pending.length >= PENDING_MERGE_AT) this.#merge();
    }
  }

  taskAt(position: number): number {
    return this.#task[position] as number;
  }

  secondAt(position: number): number {
    return this.#second[position] as number;
  }

  /**
   * Lets the records below position `visible` (all stamped ones by default) into the time index;
   * call before reading it by rank.
   */
  settle(visible = this.#stamped): void {
    const upTo = Math.min(visible, this.#stamped);
    for (let position = this.#indexed; position < upTo; position++) this.#index(position);
    if (upTo > this.#indexed) this.#indexed = upTo;
    this.#merge();
  }

  /** Merges pending records into the time index. */
  #merge(): void {
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
    this.#pushedMs = resized(this.#pushedMs, this.#pushedMs.length * 2);
  }
}

function resized<T extends Int32Array | Float64Array>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}
