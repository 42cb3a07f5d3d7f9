/**
 * The one place events wait for the handler. Events are handed over strictly in push order. With
 * `maxInFlight` 1 (the default) a handler that returns a promise is awaited before the next event;
 * with N > 1 up to N events are with the handler at once (a host batching events into one unit of
 * work needs the next ones while the first still wait for their batch). Synchronous handlers are
 * called straight from `push`, so a fast consumer adds no latency.
 *
 * Completion is in order whatever order the handler's promises settle in: an event is reported
 * delivered (`onDelivered`, which moves the durable position) only once its own promise settled
 * and every earlier event was reported. So a saved position never covers an event whose handler
 * has not finished, even when a later one finished first.
 *
 * `maxInFlight` bounds the handler promises not yet settled; an event whose handler finished
 * synchronously (a host's filter said no) takes no slot while it waits for an earlier one.
 *
 * The queue is bounded by `highWaterMark` on the events still waiting (not yet handed over); the
 * handler side holds at most `maxInFlight` unsettled plus `highWaterMark` finished-but-unreported
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
  /** Handler promises pending at once (default 1). */
  maxInFlight?: number;
  deliver(item: T): void | PromiseLike<void>;
  /** After the handler returned (or its promise settled), whether or not it threw; in push order. */
  onDelivered(item: T): void;
  onHandlerError(error: unknown, item: T): void;
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

/** An event handed over (or skipped) and not yet reported, in push order. */
interface Pending<T> {
  item: T;
  settled: boolean;
  skipped: boolean;
}

export class DeliveryQueue<T> {
  // A head index instead of Array#shift keeps dequeuing O(1) for long queues.
  private items: (T | undefined)[] = [];
  private head = 0;
  /** Handed to the handler or skipped, not yet reported; reported strictly from the front. */
  private pending: Pending<T>[] = [];
  /** Skipped entries after the last handed-over one, by `skipKey`. */
  private tailSkips = new Map<unknown, Pending<T>>();
  /** Handler promises not yet settled: what `maxInFlight` bounds. */
  private running = 0;
  /** Handed over and not yet reported (settled or not). */
  private handling = 0;
  private closed = false;
  private pressured = false;
  private roomWaiters: (() => void)[] = [];
  private peak = 0;
  private readonly maxInFlight: number;

  constructor(private readonly options: DeliveryQueueOptions<T>) {
    this.maxInFlight = options.maxInFlight ?? 1;
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
   * Discards what waits and stops delivering. Handler promises still pending are not awaited and
   * never reported delivered: their events stay outside the position.
   */
  close(): void {
    this.closed = true;
    this.items = [];
    this.head = 0;
    this.pending = [];
    this.handling = 0;
    this.running = 0;
    this.tailSkips.clear();
    this.releaseWaiters();
  }

  private drain(): void {
    // A handler that finished synchronously (a filtered-out event) does not hold a slot, or a few
    // of them could stall a batch that waits for more; finished events waiting for an earlier one
    // are bounded by the mark instead, so memory stays bounded while one promise hangs.
    while (
      !this.closed &&
      this.running < this.maxInFlight &&
      this.handling < this.maxInFlight + this.options.highWaterMark &&
      this.length > 0
    ) {
      const item = this.take() as T;
      this.relieve();
      let result: void | PromiseLike<void>;
      try {
        result = this.options.deliver(item);
      } catch (error) {
        this.options.onHandlerError(error, item);
        result = undefined;
      }
      const isPromise =
        result !== undefined && result !== null && typeof (result as PromiseLike<void>).then === 'function';
      if (!isPromise && this.pending.length === 0) {
        // The fast path: nothing earlier is pending, so a synchronous handler is done in order.
        this.options.onDelivered(item);
        continue;
      }
      const entry: Pending<T> = { item, settled: !isPromise, skipped: false };
      this.pending.push(entry);
      this.tailSkips.clear();
      this.handling++;
      if (isPromise) {
        this.running++;
        const pending = this.pending;
        (result as PromiseLike<void>).then(
          () => this.settle(entry, pending),
          (error: unknown) => {
            if (pending === this.pending) this.options.onHandlerError(error, item);
            this.settle(entry, pending);
          },
        );
      }
    }
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

  /** `pending` is the list the entry was put in: a close replaces it, and then nothing is reported. */
  private settle(entry: Pending<T>, pending: Pending<T>[]): void {
    if (this.closed || pending !== this.pending) return;
    entry.settled = true;
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
