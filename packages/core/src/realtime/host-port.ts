import type { DeliverPort } from './delivery-queue.js';
import { batchIdentity } from './event-key.js';
import type { Item } from './stream.js';
import type { SubscriptionHandlers } from './types.js';
import type { UnfinishedRecord } from './unfinished-record.js';

/** With `position.unfinished`: the record, and how to write it before a hand-over. */
export interface HandOverRecord {
  record: UnfinishedRecord;
  /** Writes the record now (it holds the unit being handed over). */
  save(): void;
  now(): number;
}

/**
 * The host's handlers as the delivery queue's deliver port: an event (`onEvent`) or a batch
 * (`onBatch`) with its meta, called on the host's object (its `this` is kept). What the handler
 * returns is the acknowledgement the queue waits for. With a record of what is unfinished, each
 * unit is recorded (and the record saved) before the handler is called, and its first attempt in
 * this run is one more than earlier runs made.
 */
export class HostPort implements DeliverPort<Item> {
  wanted?: (item: Item) => boolean;
  prepare?: (item: Item) => Promise<void>;
  finished?: (items: Item[]) => void;
  firstAttempt?: (items: Item[]) => number;
  private readonly handOvers: HandOverRecord | undefined;

  constructor(
    private readonly handlers: SubscriptionHandlers,
    options: {
      filtered: boolean;
      prepare: ((item: Item) => Promise<void>) | undefined;
      record?: HandOverRecord;
    },
  ) {
    if (options.filtered) this.wanted = (item) => item.wanted;
    if (options.prepare) this.prepare = options.prepare;
    this.handOvers = options.record;
    if (options.record) {
      const { record } = options.record;
      this.finished = (items) => record.finished(keyOf(items));
      // Where no earlier run left a unit to come again (most runs), the hand-over works out its key once.
      this.firstAttempt = (items) => (record.carrying ? record.firstAttempt(keyOf(items)) : 1);
    }
  }

  one(item: Item, attempt: number, signal: AbortSignal): void | Promise<void> {
    // The first attempt hands the item's own meta over (no copy on the fast path).
    const meta = attempt === 1 ? item.meta : { ...item.meta, attempt };
    const handOvers = this.handOvers;
    if (handOvers === undefined) return this.handlers.onEvent?.(item.event, meta, signal);
    this.record(handOvers, batchIdentity([item.event]), attempt);
    return this.handlers.onEvent?.(item.event, meta, signal);
  }

  batch(items: Item[], attempt: number, signal: AbortSignal): void | Promise<void> {
    const events = items.map((item) => item.event);
    const key = batchIdentity(events);
    if (this.handOvers) this.record(this.handOvers, key, attempt);
    const metas = items.map((item) => (attempt === 1 ? item.meta : { ...item.meta, attempt }));
    return this.handlers.onBatch?.({ events, metas, key, attempt, signal });
  }

  /** Events dropped behind the same handed-over event keep only the newest of their socket. */
  skipKey(item: Item): unknown {
    return item.stream;
  }

  private record(handOvers: HandOverRecord, key: string, attempt: number): void {
    handOvers.record.handing(key, attempt, handOvers.now());
    handOvers.save();
  }
}

function keyOf(items: Item[]): string {
  return batchIdentity(items.map((item) => item.event));
}
