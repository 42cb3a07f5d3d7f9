/**
 * The live part of history: each live record's task, second, record id and push time in
 * publication order (its position), plus an index of the visible records in time order.
 *
 * Why two orders: a real pipeline records an event when its analysis finishes, not when it
 * occurred, so ids grow in publish order while timestamps do not (per-camera latency, VLM
 * answers published minutes late). History is served in time order, so it needs the index.
 *
 * Record ids grow with the position but need not follow one another: a database shared by
 * several writers hands the ids between to rows this service never lists (see `interleavedIds`).
 *
 * Why push times: history may lag the live feed (`historyLagMs`, a search index refreshing every
 * second), by a lag of each row's own (`historyLagSpreadMs`: index shards refreshing apart), so a
 * row pushed later may show before one pushed earlier. Records pushed and not shown yet wait in
 * a list, in position order; each read lets in those whose lag has passed. A record once indexed
 * stays visible, as a row once searchable stays so when an index's refresh interval is raised.
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
  /** Each record's id, growing with the position. */
  #ids = new Float64Array(1024);
  /** 1 once a record is in the time index (or pending for it): history shows it. */
  #visible = new Uint8Array(1024);
  #count = 0;
  #stamped = 0;
  /** Positions below this were stamped and are visible or waiting. */
  #scanned = 0;
  /** Positions stamped and not shown yet, in position order. */
  #waiting: number[] = [];
  /** Positions sorted by (second, position); `#ordered` of them are in place. */
  #order = new Int32Array(1024);
  #ordered = 0;
  #tailSecond = Number.NEGATIVE_INFINITY;
  #tailPosition = -1;
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

  /** The newest record id (0 before the first record). */
  get newestId(): number {
    return this.#count > 0 ? (this.#ids[this.#count - 1] as number) : 0;
  }

  /**
   * Stores a record under `id` (larger than every id before it); returns its position. It is not
   * in the time index (history) until it has been stamped pushed and settle() lets it in.
   */
  append(taskId: number, second: number, id: number): number {
    const position = this.#count;
    if (position === this.#task.length) this.#grow();
    this.#task[position] = taskId;
    this.#second[position] = second;
    this.#ids[position] = id;
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

  /** The position of record `id`, or -1 when no live record has it. */
  positionOf(id: number): number {
    let lo = 0;
    let hi = this.#count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#ids[mid] as number) < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.#count && this.#ids[lo] === id ? lo : -1;
  }

  idAt(position: number): number {
    return this.#ids[position] as number;
  }

  /** Whether history shows the record at `position` (after settle()). */
  isVisible(position: number): boolean {
    return this.#visible[position] === 1;
  }

  #index(position: number): void {
    this.#visible[position] = 1;
    const second = this.#second[position] as number;
    // Rows of one second stay in position (= record id) order, whichever showed first.
    if (second > this.#tailSecond || (second === this.#tailSecond && position > this.#tailPosition)) {
      if (this.#ordered === this.#order.length) this.#order = resized(this.#order, this.#order.length * 2);
      this.#order[this.#ordered++] = position;
      this.#tailSecond = second;
      this.#tailPosition = position;
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
   * Lets into the time index every stamped record whose push lies at least `lagOf(position)` ms
   * before `nowMs` (all stamped ones without `lagOf`); call before reading it by rank.
   */
  settle(nowMs = Number.POSITIVE_INFINITY, lagOf?: (position: number) => number): void {
    for (let position = this.#scanned; position < this.#stamped; position++) this.#waiting.push(position);
    this.#scanned = this.#stamped;
    if (this.#waiting.length > 0) {
      const still: number[] = [];
      for (const position of this.#waiting) {
        const lag = lagOf ? lagOf(position) : 0;
        if ((this.#pushedMs[position] as number) + lag <= nowMs) this.#index(position);
        else still.push(position);
      }
      this.#waiting = still;
    }
    this.#merge();
  }

  /** Merges pending records into the time index. */
  #merge(): void {
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    const second = this.#second;
    // Equal seconds in position (= record id) order: rows of a varying lag show in any order.
    pending.sort((a, b) => (second[a] as number) - (second[b] as number) || a - b);
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
    const tail = order[total - 1] as number;
    this.#tailSecond = second[tail] as number;
    this.#tailPosition = tail;
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
    this.#ids = resized(this.#ids, this.#ids.length * 2);
    this.#visible = resized(this.#visible, this.#visible.length * 2);
  }
}

function resized<T extends Int32Array | Float64Array | Uint8Array>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}
