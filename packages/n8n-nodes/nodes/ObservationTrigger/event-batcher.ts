import type { Clock } from '@observation-service/core/portable';

export interface EventBatcherOptions<T> {
  /** Items per batch: a full batch is emitted at once. */
  size: number;
  /** How long after its first item a batch that did not fill is emitted anyway. */
  waitMs: number;
  /** The host's timer (n8n-workflow's sleep: community nodes may not use global timers). */
  clock: Clock;
  /** Emits one batch, its items in the order they were added. */
  emit(items: T[]): void;
}

interface Batch<T> {
  items: (T | Promise<T>)[];
  /** Ends the batch's wait for more items. */
  timer: AbortController;
  done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Groups items into batches of up to `size`, or whatever came within `waitMs` of a batch's first
 * item, whichever is first. Items may still be in preparation (a snapshot download): each batch
 * waits for its own items, and batches are emitted strictly one after the other, in order.
 *
 * `add` resolves once the item's batch was emitted: the trigger hands that promise to core, so
 * the saved position covers an event only once n8n has it. After `close` nothing more is emitted
 * and pending `add` promises never settle, so core never counts those events as handled: they are
 * read again on the next activation (with catch-up on) instead of being lost or repeated.
 */
export class EventBatcher<T> {
  private open: Batch<T> | undefined;
  private emitted: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: EventBatcherOptions<T>) {}

  /** Adds an item, or the promise of one, to the open batch; resolves when that batch was emitted. */
  add(item: T | Promise<T>): Promise<void> {
    if (this.closed) return new Promise<void>(() => {});
    const batch = this.open ?? this.start();
    batch.items.push(item);
    if (batch.items.length >= this.options.size) this.seal(batch);
    return batch.done;
  }

  /** Stops emitting: the open batch and any batch still being prepared are dropped, not emitted. */
  close(): void {
    this.closed = true;
    this.open?.timer.abort();
    this.open = undefined;
  }

  private start(): Batch<T> {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const batch: Batch<T> = { items: [], timer: new AbortController(), done, resolve, reject };
    this.open = batch;
    if (this.options.size > 1) {
      this.options.clock.sleep(this.options.waitMs, batch.timer.signal).then(
        () => this.seal(batch),
        // Aborted: the batch filled up (already sealed) or the trigger closed.
        () => undefined,
      );
    }
    return batch;
  }

  /** Ends the batch's intake and queues its emission behind the batches before it. */
  private seal(batch: Batch<T>): void {
    if (this.open !== batch) return;
    this.open = undefined;
    batch.timer.abort();
    this.emitted = this.emitted.then(async () => {
      try {
        const items = await Promise.all(batch.items);
        if (this.closed) return;
        this.options.emit(items);
        batch.resolve();
      } catch (error) {
        // Reported by core as a handler error; the chain goes on so later batches still go out.
        if (!this.closed) batch.reject(error);
      }
    });
  }
}
