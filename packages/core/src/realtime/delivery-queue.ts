/**
 * The one place events wait for the handler. Events are handed over strictly in push order, one
 * at a time: a handler that returns a promise is awaited before the next event. Synchronous
 * handlers are called straight from `push`, so a fast consumer adds no latency.
 *
 * The queue is bounded by `highWaterMark`:
 * - `pause`: the queue reports pressure (`onPressure(true)`) so the sockets stop reading, and
 *   history catch-up awaits `waitForRoom()`; nothing is lost. Pressure ends at half the mark.
 * - `drop-oldest`: the oldest waiting event is discarded for each new one beyond the mark.
 */
export interface DeliveryQueueOptions<T> {
  highWaterMark: number;
  overflow: 'pause' | 'drop-oldest';
  deliver(item: T): void | PromiseLike<void>;
  /** After the handler returned (or its promise settled), whether or not it threw. */
  onDelivered(item: T): void;
  onHandlerError(error: unknown, item: T): void;
  onDropped(item: T): void;
  onPressure(paused: boolean): void;
}

export class DeliveryQueue<T> {
  // A head index instead of Array#shift keeps dequeuing O(1) for long queues.
  private items: (T | undefined)[] = [];
  private head = 0;
  private busy = false;
  private closed = false;
  private pressured = false;
  private roomWaiters: (() => void)[] = [];
  private peak = 0;

  constructor(private readonly options: DeliveryQueueOptions<T>) {}

  get length(): number {
    return this.items.length - this.head;
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
      if (oldest !== undefined) this.options.onDropped(oldest);
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

  /** Discards what waits and stops delivering; an in-flight handler is not awaited. */
  close(): void {
    this.closed = true;
    this.items = [];
    this.head = 0;
    this.releaseWaiters();
  }

  private drain(): void {
    while (!this.busy && !this.closed && this.length > 0) {
      const item = this.take() as T;
      this.relieve();
      let result: void | PromiseLike<void>;
      try {
        result = this.options.deliver(item);
      } catch (error) {
        this.options.onHandlerError(error, item);
        result = undefined;
      }
      if (
        result !== undefined &&
        result !== null &&
        typeof (result as PromiseLike<void>).then === 'function'
      ) {
        this.busy = true;
        (result as PromiseLike<void>).then(
          () => this.settle(item),
          (error: unknown) => {
            this.options.onHandlerError(error, item);
            this.settle(item);
          },
        );
        return;
      }
      this.afterDelivery(item);
    }
  }

  private settle(item: T): void {
    this.busy = false;
    if (this.closed) return;
    this.afterDelivery(item);
    this.drain();
  }

  private afterDelivery(item: T): void {
    this.options.onDelivered(item);
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
