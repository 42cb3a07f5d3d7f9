import type { EventKey } from './event-key.js';
import { KeyIndex } from './key-index.js';

/**
 * Where one socket stands, in memory: catch up from `fromMs`, skip `keys` (delivered events at
 * or after it). The stored position is this, formatted (position.ts); a restart restores it.
 */
export interface StreamRecord {
  fromMs: number;
  /** Time of the newest delivered event. */
  newestMs: number | undefined;
  keys: EventKey[];
}

/**
 * Admission of one socket's events by identity, never by time: an event is refused only when its
 * key (record id, or the basic form's content key) was admitted before. Late and out-of-order
 * events are admitted like any other.
 *
 * It also knows what was delivered (admitted events are acknowledged in admission order, so one
 * number says how far delivery got) and turns that into where the socket stands: where a catch-up
 * must start and which keys after that point are already delivered. A plain record: it calls
 * nothing and knows nothing of sockets, queues or stores.
 *
 * Memory: keys are kept while they are within `retainMs` of the newest admitted event (the
 * allowed lateness plus slack, how far a catch-up reads back), and never more than `capacity`.
 * When the capacity forces a key out early, `horizon` moves past it: catch-ups never start before
 * the horizon, so an evicted key can never be met again in a catch-up.
 *
 * On the hot path of every live event: one entry per key (see KeyIndex) and two parallel FIFO arrays.
 */
export class Admission {
  private readonly seen = new KeyIndex();
  private keys: EventKey[] = [];
  private times: number[] = [];
  private head = 0;
  /** Admission order of keys[head]. */
  private headOrder = 0;
  private nextOrder = 0;
  private deliveredUpTo = -1;
  private newestAdmittedMs = Number.NEGATIVE_INFINITY;
  private newestDeliveredMs = Number.NEGATIVE_INFINITY;
  private horizonMs = Number.NEGATIVE_INFINITY;
  /** True once the capacity forced a key out before its time (reported once by the stream). */
  capacityReached = false;

  constructor(
    private readonly retainMs: number,
    private readonly capacity: number,
    /** Where this stream's interest starts: no catch-up reads before it. */
    private floorMs: number,
  ) {}

  /**
   * Seeds the memory from a saved position: its keys count as delivered. A stored key carries no
   * time of its own; the newest delivered time stands in for it, an upper bound, so the key is
   * kept (and saved again) until the position has moved past every time it could have had.
   */
  restore(position: StreamRecord): void {
    this.floorMs = position.fromMs;
    for (const key of position.keys) this.admit(key, position.newestMs ?? position.fromMs);
    this.deliveredUpTo = this.nextOrder - 1;
    if (position.newestMs !== undefined) {
      this.newestAdmittedMs = Math.max(this.newestAdmittedMs, position.newestMs);
      this.newestDeliveredMs = Math.max(this.newestDeliveredMs, position.newestMs);
    }
  }

  /** Admits `key`: its admission order, or undefined when it was admitted before (a duplicate). */
  admit(key: EventKey, timeMs: number): number | undefined {
    if (this.seen.get(key) !== undefined) return undefined;
    const order = this.nextOrder++;
    this.seen.add(key, order);
    this.keys.push(key);
    this.times.push(timeMs);
    if (timeMs > this.newestAdmittedMs) this.newestAdmittedMs = timeMs;
    this.evict();
    return order;
  }

  /**
   * Knows `key` without delivering it (an event published before a fresh start): later catch-ups
   * take it for a duplicate. Only while nothing admitted waits for delivery.
   */
  ignore(key: EventKey, timeMs: number): void {
    const order = this.admit(key, timeMs);
    if (order !== undefined) this.deliveredUpTo = order;
  }

  /** The host acknowledged the event admitted as `order` (acknowledgements follow admission order). */
  delivered(order: number, timeMs: number): void {
    if (order > this.deliveredUpTo) this.deliveredUpTo = order;
    if (timeMs > this.newestDeliveredMs) this.newestDeliveredMs = timeMs;
  }

  /** Position of `key` in admission order (larger = admitted later), or undefined when unknown. */
  orderOf(key: EventKey): number | undefined {
    return this.seen.get(key);
  }

  get size(): number {
    return this.seen.size;
  }

  /**
   * Where a catch-up after a drop starts: far enough before the newest admitted event that an
   * event published up to `latenessMs` late is still read, never before the floor or horizon.
   */
  catchUpStart(latenessMs: number, slackMs: number): number {
    const fromNewest =
      this.newestAdmittedMs === Number.NEGATIVE_INFINITY
        ? this.floorMs
        : this.newestAdmittedMs - latenessMs - slackMs;
    return Math.max(this.floorMs, this.horizonMs, fromNewest);
  }

  /**
   * Where the socket stands for a restart: catch up from `fromMs` and skip `keys`. Only delivered
   * events count, so an event still waiting for its acknowledgement is read again after a
   * restart, never skipped.
   */
  record(latenessMs: number, slackMs: number): StreamRecord {
    const newest = this.newestDeliveredMs;
    const fromMs = Math.max(
      this.floorMs,
      this.horizonMs,
      newest === Number.NEGATIVE_INFINITY ? this.floorMs : newest - latenessMs - slackMs,
    );
    const keys: EventKey[] = [];
    const lastIndex = this.head + (this.deliveredUpTo - this.headOrder);
    // Keys of the second `fromMs` falls in are kept too: history is read from whole seconds.
    const keepFrom = Math.floor(fromMs / 1000) * 1000;
    for (let index = this.head; index <= lastIndex && index < this.keys.length; index++) {
      if ((this.times[index] as number) >= keepFrom) keys.push(this.keys[index] as EventKey);
    }
    return { fromMs, newestMs: newest === Number.NEGATIVE_INFINITY ? undefined : newest, keys };
  }

  private evict(): void {
    // Admission order is close to time order, so the oldest keys sit at the front of the FIFO.
    const oldestKept = this.newestAdmittedMs - this.retainMs;
    while (this.head < this.keys.length) {
      const time = this.times[this.head] as number;
      const overCapacity = this.seen.size > this.capacity;
      if (!overCapacity && time >= oldestKept) break;
      // A key may only go once it is delivered: until then the position still needs it.
      if (this.headOrder > this.deliveredUpTo && !overCapacity) break;
      if (overCapacity && time >= oldestKept) {
        this.capacityReached = true;
        // Nothing before the next whole second can be told apart any more.
        this.horizonMs = Math.max(this.horizonMs, Math.floor(time / 1000) * 1000 + 1000);
      }
      this.seen.delete(this.keys[this.head] as EventKey);
      this.head++;
      this.headOrder++;
    }
    if (this.head > 4096 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
