import type { Clock } from '../ports.js';

/**
 * The one place events wait for the host, and the one owner of its acknowledgements. Events are
 * handed over strictly in push order, one by one (`deliver`) or in batches (`deliverBatch`). A
 * handler that returns a promise acknowledges its events when the promise settles; one that
 * returns nothing acknowledges them at once (a synchronous handler is called straight from `push`,
 * so a fast consumer adds no latency).
 *
 * Completion is in order whatever order the acknowledgements come in: an event is reported done
 * (`onDelivered`, which moves the durable position) only once it was acknowledged and every
 * earlier event was reported. So a saved position never covers an event the host has not
 * finished, even when a later one finished first. This is how a Kafka consumer commits offsets.
 *
 * `maxInFlight` bounds the units handed over and not yet acknowledged: events, or batches (a
 * batch filling up counts as one). An event the handler finished synchronously takes no slot
 * while it waits for an earlier one. Events the host does not want (`wanted` says no) are never
 * handed over: they complete in their place, like an event acknowledged at once.
 *
 * A batch is sealed when it holds `size` events or `waitMs` after its first event (on the host's
 * clock), whichever comes first, and handed over whole. Closing drops a batch still filling: its
 * events were never acknowledged, so the position does not cover them.
 *
 * The queue is bounded by `highWaterMark` on the events still waiting (not yet handed over); the
 * handler side holds at most `maxInFlight` units plus `highWaterMark` finished-but-unreported
 * events:
 * - `pause`: the queue reports pressure (`onPressure(true)`) so the sockets stop reading, and
 *   history catch-up awaits `waitForRoom()`; nothing is lost. Pressure ends at half the mark.
 * - `drop-oldest`: the oldest waiting event is discarded for each new one beyond the mark. It is
 *   counted at once (`onDropped`) and passed over in order (`onSkipped`), after the events handed
 *   over before it completed.
 */
export interface DeliveryQueueOptions<T> {
  highWaterMark: number;
  overflow: 'pause' | 'drop-oldest';
  /** Units (events, or batches) handed over and not acknowledged, at most (default 1). */
  maxInFlight?: number;
  /** One event to the handler. */
  deliver(item: T): void | PromiseLike<void>;
  /** With `batch`: one batch to the handler instead. */
  deliverBatch?(items: T[]): void | PromiseLike<void>;
  batch?: { size: number; waitMs: number; clock: Clock };
  /** False for an event the host does not want: it completes in its place without a handler call. */
  wanted?(item: T): boolean;
  /** After the event was acknowledged (or passed over as unwanted), whether or not it threw; in push order. */
  onDelivered(item: T): void;
  onHandlerError(error: unknown, items: T[]): void;
  /** An event discarded by `drop-oldest`, at the moment it is discarded. */
  onDropped(item: T): void;
  /** The same discarded event once every event before it completed (in push order, like onDelivered). */
  onSkipped?(item: T): void;
  /**
   * Discarded events with the same key waiting behind the same handed-over event keep only the
   * newest (a position only needs the latest), so a handler that never settles cannot make
   * `drop-oldest` hold more than one entry per key per event in flight.
   */
  skipKey?(item: T): unknown;
  onPressure(paused: boolean): void;
}

/** An event handed over, passed over or skipped, and not yet reported; in push order. */
interface Pending<T> {
  item: T;
  settled: boolean;
  skipped: boolean;
}

/** A batch being filled; its events are already in `pending`. */
interface OpenBatch<T> {
  items: T[];
  entries: Pending<T>[];
  timer: AbortController;
}

export class DeliveryQueue<T> {
  // A head index instead of Array#shift keeps dequeuing O(1) for long queues.
  private items: (T | undefined)[] = [];
  private head = 0;
  /** Handed over, passed over or skipped, not yet reported; reported strictly from the front. */
  private pending: Pending<T>[] = [];
  /** Skipped entries after the last handed-over one, by `skipKey`. */
  private tailSkips = new Map<unknown, Pending<T>>();
  /** Units (events or batches, the open one included) not yet acknowledged: what `maxInFlight` bounds. */
  private running = 0;
  /** Handed over or passed over, and not yet reported (settled or not). */
  private handling = 0;
  private open: OpenBatch<T> | undefined;
  private closed = false;
  private pressured = false;
  private roomWaiters: (() => void)[] = [];
  private peak = 0;
  private draining = false;
  private readonly maxInFlight: number;
  /** Events handed over (or passed over) and not yet reported, at most. */
  private readonly capacity: number;

  constructor(private readonly options: DeliveryQueueOptions<T>) {
    this.maxInFlight = options.maxInFlight ?? 1;
    this.capacity = this.maxInFlight * (options.batch?.size ?? 1) + options.highWaterMark;
  }

  /** Events waiting, not yet handed to the handler. */
  get length(): number {
    return this.items.length - this.head;
  }

  /** Events handed to the handler and not yet reported delivered (finished or not). */
  get inFlight(): number {
    return this.handling;
  }

  get peakLength(): number {
    return this.peak;
  }

  /** Whether `pause` pressure is on (the sockets should not read). */
  get isPressured(): boolean {
    return this.pressured;
  }

  push(item: T): void {
    if (this.closed) return;
    // The fast path of a host that keeps up: nothing waits or is pending, so the event goes
    // straight to the handler (a synchronous one is done before push returns).
    if (
      this.length === 0 &&
      this.pending.length === 0 &&
      !this.draining &&
      this.running < this.maxInFlight &&
      this.options.batch === undefined &&
      (this.options.wanted === undefined || this.options.wanted(item))
    ) {
      if (this.peak === 0) this.peak = 1;
      this.draining = true;
      try {
        this.hand(item);
      } finally {
        this.draining = false;
      }
      return;
    }
    if (this.options.overflow === 'drop-oldest' && this.length >= this.options.highWaterMark) {
      const oldest = this.take();
      if (oldest !== undefined) this.skip(oldest);
    }
    this.items.push(item);
    if (this.length > this.peak) this.peak = this.length;
    if (this.options.overflow === 'pause' && !this.pressured && this.length >= this.options.highWaterMark) {
      this.pressured = true;
      this.options.onPressure(true);
    }
    this.drain();
  }

  /** Resolves when the queue is below its high-water mark (at once for `drop-oldest`), or closed. */
  waitForRoom(): Promise<void> {
    if (this.closed || this.options.overflow === 'drop-oldest' || this.length < this.options.highWaterMark) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /**
   * Discards what waits and stops delivering. A batch still filling is dropped; promises still
   * pending are not awaited and never reported delivered: their events stay outside the position.
   */
  close(): void {
    this.closed = true;
    this.open?.timer.abort();
    this.open = undefined;
    this.items = [];
    this.head = 0;
    this.pending = [];
    this.handling = 0;
    this.running = 0;
    this.tailSkips.clear();
    this.releaseWaiters();
  }

  private drain(): void {
    // A batch handler that returns at once settles from inside this loop: the loop goes on
    // instead of nesting (one nested call per batch would exhaust the stack in a burst).
    if (this.draining) return;
    this.draining = true;
    try {
      this.drainLoop();
    } finally {
      this.draining = false;
    }
  }

  private drainLoop(): void {
    const batched = this.options.batch !== undefined;
    // A handler that finished synchronously (or an unwanted event) does not hold a slot, or a few
    // of them could stall a batch that waits for more; finished events waiting for an earlier one
    // are bounded by the mark instead, so memory stays bounded while one promise hangs.
    while (!this.closed && this.length > 0 && this.handling < this.capacity) {
      const next = this.items[this.head] as T;
      const wanted = this.options.wanted === undefined || this.options.wanted(next);
      if (wanted && !batched && this.running >= this.maxInFlight) break;
      if (wanted && batched && this.open === undefined && this.running >= this.maxInFlight) break;
      const item = this.take() as T;
      this.relieve();
      if (!wanted) this.pass(item);
      else if (batched) this.addToBatch(item);
      else this.hand(item);
    }
  }

  /** An event the host does not want: done in its place. */
  private pass(item: T): void {
    if (this.pending.length === 0) {
      this.options.onDelivered(item);
      return;
    }
    this.pending.push({ item, settled: true, skipped: false });
    this.tailSkips.clear();
    this.handling++;
  }

  private hand(item: T): void {
    let result: void | PromiseLike<void>;
    try {
      result = this.options.deliver(item);
    } catch (error) {
      this.options.onHandlerError(error, [item]);
      result = undefined;
    }
    const isPromise = isThenable(result);
    if (!isPromise && this.pending.length === 0) {
      // The fast path: nothing earlier is pending, so a synchronous handler is done in order.
      this.options.onDelivered(item);
      return;
    }
    const entry: Pending<T> = { item, settled: !isPromise, skipped: false };
    this.pending.push(entry);
    this.tailSkips.clear();
    this.handling++;
    if (isPromise) this.await(result as PromiseLike<void>, [entry], [item]);
  }

  private addToBatch(item: T): void {
    const entry: Pending<T> = { item, settled: false, skipped: false };
    this.pending.push(entry);
    this.tailSkips.clear();
    this.handling++;
    let batch = this.open;
    if (batch === undefined) {
      batch = { items: [], entries: [], timer: new AbortController() };
      this.open = batch;
      this.running++;
      const { clock, waitMs } = this.options.batch as NonNullable<DeliveryQueueOptions<T>['batch']>;
      const opened = batch;
      clock.sleep(waitMs, batch.timer.signal).then(
        () => this.seal(opened),
        // Aborted: the batch filled up (already sealed) or the queue closed.
        () => undefined,
      );
    }
    batch.items.push(item);
    batch.entries.push(entry);
    if (batch.items.length >= (this.options.batch?.size ?? 1)) this.seal(batch);
  }

  private seal(batch: OpenBatch<T>): void {
    if (this.open !== batch || this.closed) return;
    this.open = undefined;
    batch.timer.abort();
    let result: void | PromiseLike<void>;
    try {
      result = (this.options.deliverBatch as NonNullable<DeliveryQueueOptions<T>['deliverBatch']>)(
        batch.items,
      );
    } catch (error) {
      this.options.onHandlerError(error, batch.items);
      result = undefined;
    }
    if (isThenable(result)) {
      this.await(result, batch.entries, batch.items);
      return;
    }
    this.settle(batch.entries, this.pending);
  }

  private await(result: PromiseLike<void>, entries: Pending<T>[], items: T[]): void {
    if (this.options.batch === undefined) this.running++;
    const pending = this.pending;
    result.then(
      () => this.settle(entries, pending),
      (error: unknown) => {
        if (pending === this.pending) this.options.onHandlerError(error, items);
        this.settle(entries, pending);
      },
    );
  }

  private skip(item: T): void {
    this.options.onDropped(item);
    if (this.pending.length === 0) {
      this.options.onSkipped?.(item);
      return;
    }
    // Handed-over events come before it: it passes only once they completed.
    const key = this.options.skipKey?.(item);
    const earlier = key === undefined ? undefined : this.tailSkips.get(key);
    if (earlier) {
      earlier.item = item;
      return;
    }
    const entry: Pending<T> = { item, settled: true, skipped: true };
    this.pending.push(entry);
    if (key !== undefined) this.tailSkips.set(key, entry);
  }

  /** `pending` is the list the entries were put in: a close replaces it, and then nothing is reported. */
  private settle(entries: Pending<T>[], pending: Pending<T>[]): void {
    if (this.closed || pending !== this.pending) return;
    for (const entry of entries) entry.settled = true;
    this.running--;
    this.report();
    this.drain();
  }

  /** Reports the settled events at the front, in order; stops at the first unsettled one. */
  private report(): void {
    let done = 0;
    while (done < this.pending.length && (this.pending[done] as Pending<T>).settled) {
      const entry = this.pending[done] as Pending<T>;
      done++;
      if (entry.skipped) {
        this.options.onSkipped?.(entry.item);
      } else {
        this.handling--;
        this.options.onDelivered(entry.item);
      }
      if (this.closed) return;
    }
    // maxInFlight bounds the list (skipped entries only come after handed-over ones), so splice is cheap.
    if (done > 0) {
      this.pending.splice(0, done);
      if (this.pending.length === 0) this.tailSkips.clear();
    }
  }

  /** Called whenever an item leaves the queue for the handler. */
  private relieve(): void {
    const length = this.length;
    if (length < this.options.highWaterMark) this.releaseWaiters();
    if (this.pressured && length <= Math.floor(this.options.highWaterMark / 2)) {
      this.pressured = false;
      this.options.onPressure(false);
    }
  }

  private take(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  private releaseWaiters(): void {
    if (this.roomWaiters.length === 0) return;
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

function isThenable(value: unknown): value is PromiseLike<void> {
  return value !== undefined && value !== null && typeof (value as PromiseLike<void>).then === 'function';
}
