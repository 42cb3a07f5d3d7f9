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
 * The time index is a {@link TimeOrder} over every record, and one per task for the pages of one
 * task's history.
 */

import { resized, TimeOrder } from './time-order.js';

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
  /** Every visible record in time order, and each task's. */
  readonly #all = new TimeOrder(() => this.#second);
  readonly #byTask = new Map<number, TimeOrder>();
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
    return this.#all.count;
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
    this.#all.add(position);
    const taskId = this.#task[position] as number;
    let ofTask = this.#byTask.get(taskId);
    if (!ofTask) {
      ofTask = new TimeOrder(() => this.#second);
      this.#byTask.set(taskId, ofTask);
    }
    ofTask.add(position);
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
  settle(
    nowMs = Number.POSITIVE_INFINITY,
    lagOf?: (position: number) => number,
    /** No record's lag is shorter: the scan stops at the first record pushed too recently for it. */
    minLagMs = 0,
  ): void {
    for (let position = this.#scanned; position < this.#stamped; position++) this.#waiting.push(position);
    this.#scanned = this.#stamped;
    const waiting = this.#waiting;
    if (waiting.length > 0) {
      const still: number[] = [];
      let i = 0;
      for (; i < waiting.length; i++) {
        const position = waiting[i] as number;
        const pushed = this.#pushedMs[position] as number;
        // Push times grow with the position: from here on every record waits, whatever its lag.
        if (pushed + minLagMs > nowMs) break;
        if (pushed + (lagOf ? lagOf(position) : 0) <= nowMs) this.#index(position);
        else still.push(position);
      }
      this.#waiting = i === waiting.length ? still : still.concat(waiting.slice(i));
    }
    this.#all.merge();
    for (const ofTask of this.#byTask.values()) ofTask.merge();
  }

  /** Every visible record in time order (after settle()). */
  get inTimeOrder(): TimeOrder {
    return this.#all;
  }

  /** Task `taskId`'s visible records in time order (after settle()). */
  ofTask(taskId: number): TimeOrder {
    return this.#byTask.get(taskId) ?? NONE;
  }

  #grow(): void {
    this.#task = resized(this.#task, this.#task.length * 2);
    this.#second = resized(this.#second, this.#second.length * 2);
    this.#pushedMs = resized(this.#pushedMs, this.#pushedMs.length * 2);
    this.#ids = resized(this.#ids, this.#ids.length * 2);
    this.#visible = resized(this.#visible, this.#visible.length * 2);
  }
}

const NONE = new TimeOrder(() => new Float64Array(0));
