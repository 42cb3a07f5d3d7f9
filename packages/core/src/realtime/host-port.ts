import type { DeliverPort } from './delivery-queue.js';
import { batchIdentity } from './event-key.js';
import type { Item } from './stream.js';
import type { SubscriptionHandlers } from './types.js';

/**
 * The host's handlers as the delivery queue's deliver port: an event (`onEvent`) or a batch
 * (`onBatch`) with its meta, called on the host's object (its `this` is kept). What the handler
 * returns is the acknowledgement the queue waits for.
 */
export class HostPort implements DeliverPort<Item> {
  wanted?: (item: Item) => boolean;
  prepare?: (item: Item) => Promise<void>;

  constructor(
    private readonly handlers: SubscriptionHandlers,
    options: { filtered: boolean; prepare: ((item: Item) => Promise<void>) | undefined },
  ) {
    if (options.filtered) this.wanted = (item) => item.wanted;
    if (options.prepare) this.prepare = options.prepare;
  }

  one(item: Item, attempt: number): void | Promise<void> {
    // The first attempt hands the item's own meta over (no copy on the fast path).
    return this.handlers.onEvent?.(item.event, attempt === 1 ? item.meta : { ...item.meta, attempt });
  }

  batch(items: Item[], attempt: number): void | Promise<void> {
    const events = items.map((item) => item.event);
    const metas = items.map((item) => (attempt === 1 ? item.meta : { ...item.meta, attempt }));
    return this.handlers.onBatch?.({ events, metas, key: batchIdentity(events) });
  }

  /** Events dropped behind the same handed-over event keep only the newest of their socket. */
  skipKey(item: Item): unknown {
    return item.stream;
  }
}
