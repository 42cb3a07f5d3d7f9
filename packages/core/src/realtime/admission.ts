import { AdmittedKeys } from './admitted-keys.js';
import type { EventKey } from './event-key.js';

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

/** The owed read is read and admitted up to `untilMs` (undefined: its end) once `order` is delivered. */
interface OwedMark {
  untilMs: number | undefined;
  order: number;
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
 * On the hot path of every live event: one key added to AdmittedKeys (no memory for ids that
 * follow one another) and, now and then, the oldest ones forgotten.
 */
export class Admission {
  private readonly keys = new AdmittedKeys();
  private nextOrder = 0;
  private deliveredUpTo = -1;
  private newestAdmittedMs = Number.NEGATIVE_INFINITY;
  private newestDeliveredMs = Number.NEGATIVE_INFINITY;
  private horizonMs = Number.NEGATIVE_INFINITY;
  /**
   * Start of a catch-up not yet read and delivered to its end (see `owe`): no catch-up and no
   * saved position starts after it, and no key from it on is forgotten. Undefined: nothing owed.
   */
  private owedFromMs: number | undefined;
  /** Read-back windows read but not yet delivered, oldest first. */
  private owedMarks: OwedMark[] = [];
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
    // What was stored is all still owed: a read-back the last run had not finished (it waits for
    // historyLagMs, and a restart can come sooner, again and again) is part of this run's
    // catch-up, which therefore starts no later than the stored start.
    this.owedFromMs = position.fromMs;
    for (const key of position.keys) this.admit(key, position.newestMs ?? position.fromMs);
    this.deliveredUpTo = this.nextOrder - 1;
    if (position.newestMs !== undefined) {
      this.newestAdmittedMs = Math.max(this.newestAdmittedMs, position.newestMs);
      this.newestDeliveredMs = Math.max(this.newestDeliveredMs, position.newestMs);
    }
  }

  /** Admits `key`: its admission order, or undefined when it was admitted before (a duplicate). */
  admit(key: EventKey, timeMs: number): number | undefined {
    if (this.keys.orderOf(key) !== undefined) return undefined;
    const order = this.nextOrder++;
    this.keys.add(key, timeMs, order);
    if (timeMs > this.newestAdmittedMs) this.newestAdmittedMs = timeMs;
    this.evict();
    return order;
  }

  /**
   * Knows `keys` without delivering them (events published before a fresh start, all at `timeMs`):
   * later catch-ups take them for duplicates. Only while nothing admitted waits for delivery.
   * Record ids go in ascending, whatever order history listed them in, so that ids which follow
   * one another make one run instead of a key each (a busy second holds tens of thousands).
   */
  ignoreAll(keys: EventKey[], timeMs: number): void {
    keys.sort(idsFirstAscending);
    for (const key of keys) {
      const order = this.admit(key, timeMs);
      if (order !== undefined) this.deliveredUpTo = order;
    }
  }

  /** The host acknowledged the event admitted as `order` (acknowledgements follow admission order). */
  delivered(order: number, timeMs: number): void {
    if (order > this.deliveredUpTo) this.deliveredUpTo = order;
    if (timeMs > this.newestDeliveredMs) this.newestDeliveredMs = timeMs;
    if (this.owedMarks.length > 0) this.settleOwed();
  }

  /**
   * A catch-up from `fromMs` began that reads its lateness part last (see `catchUpRange`): until
   * it is read and delivered to its end (`readBack`), catch-ups and saved positions start no later.
   */
  owe(fromMs: number): void {
    this.owedFromMs = Math.min(fromMs, this.owedFromMs ?? fromMs);
    // Marks of an abandoned read-back settle nothing: the new one starts no later than they did.
    this.owedMarks = [];
  }

  /**
   * The owed catch-up has been read and admitted up to `untilMs` (undefined: to its end). Once
   * every event admitted so far is delivered, nothing before it is owed any more.
   */
  readBack(untilMs: number | undefined): void {
    this.owedMarks.push({ untilMs, order: this.nextOrder - 1 });
    this.settleOwed();
  }

  private settleOwed(): void {
    let mark = this.owedMarks[0];
    while (mark !== undefined && mark.order <= this.deliveredUpTo) {
      this.owedFromMs = mark.untilMs;
      this.owedMarks.shift();
      mark = this.owedMarks[0];
    }
  }

  /** Position of `key` in admission order (larger = admitted later), or undefined when unknown. */
  orderOf(key: EventKey): number | undefined {
    return this.keys.orderOf(key);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Where this stream's interest starts now: no catch-up reads before it. */
  get floor(): number {
    return Math.max(this.floorMs, this.horizonMs);
  }

  /** Events before this time may have been forgotten (the capacity forced their keys out). */
  get horizon(): number {
    return this.horizonMs;
  }

  /**
   * Where a catch-up starts: far enough before the newest admitted event that an event published
   * up to `latenessMs` late is still read (and no later than a read-back still owed), never before
   * the floor or horizon. `missedFromMs` splits it: from there on are the events missed while
   * away, read first; before it only events published late can be new, read after going live.
   * Undefined when nothing was admitted yet (a look-back or a new task: one read in time order).
   */
  catchUpRange(latenessMs: number, slackMs: number): { fromMs: number; missedFromMs: number | undefined } {
    if (this.newestAdmittedMs === Number.NEGATIVE_INFINITY) {
      return { fromMs: Math.max(this.floorMs, this.horizonMs), missedFromMs: undefined };
    }
    const fromMs = this.readBackStart(this.newestAdmittedMs, latenessMs, slackMs);
    const missedFromMs = this.newestAdmittedMs - slackMs;
    return { fromMs, missedFromMs: missedFromMs > fromMs ? missedFromMs : undefined };
  }

  private readBackStart(newestMs: number, latenessMs: number, slackMs: number): number {
    return Math.max(
      this.floorMs,
      this.horizonMs,
      Math.min(newestMs - latenessMs - slackMs, this.owedFromMs ?? newestMs),
    );
  }

  /**
   * Where the socket stands for a restart: catch up from `fromMs` and skip `keys`. Only delivered
   * events count, so an event still waiting for its acknowledgement is read again after a
   * restart, never skipped.
   */
  record(
    latenessMs: number,
    slackMs: number,
    finishedAhead: ReadonlyArray<{ key: EventKey; timeMs: number }> = [],
  ): StreamRecord {
    const delivered = this.newestDeliveredMs;
    const fromMs =
      delivered === Number.NEGATIVE_INFINITY
        ? Math.max(this.floorMs, this.horizonMs)
        : this.readBackStart(delivered, latenessMs, slackMs);
    // Keys of the second `fromMs` falls in are kept too: history is read from whole seconds.
    const fromSecond = Math.floor(fromMs / 1000) * 1000;
    const keys = this.keys.keysFrom(fromSecond, this.deliveredUpTo);
    // Events the host finished while an earlier one is still out: skipped after a restart, as the
    // delivered ones are. The catch-up starts where it would without them (the earlier event is
    // read again); the newest time covers them, since a restored key takes it for its own.
    let newest = delivered;
    for (const { key, timeMs } of finishedAhead) {
      if (timeMs < fromSecond) continue;
      keys.push(key);
      if (timeMs > newest) newest = timeMs;
    }
    return { fromMs, newestMs: newest === Number.NEGATIVE_INFINITY ? undefined : newest, keys };
  }

  private evict(): void {
    // Admission order is close to time order, so the oldest keys are the ones to go.
    // A key the owed read-back may meet again stays too.
    const oldestKept = Math.min(
      this.newestAdmittedMs - this.retainMs,
      (this.owedFromMs ?? Number.POSITIVE_INFINITY) - 1_000,
    );
    const { keys, capacity } = this;
    for (let time = keys.oldestTime(); time !== undefined; time = keys.oldestTime()) {
      const over = keys.size - capacity;
      const old = time < oldestKept;
      if (over <= 0 && !old) break;
      const count = keys.oldestCount();
      // An old key may only go once it is delivered (until then the position still needs it);
      // over the capacity, keys go whatever their time.
      let drop = old ? Math.min(count, this.deliveredUpTo - keys.oldestOrder() + 1) : 0;
      if (over > 0) drop = Math.max(drop, Math.min(count, over));
      if (drop <= 0) break;
      if (over > 0 && !old) {
        this.capacityReached = true;
        // Nothing before the next whole second can be told apart any more.
        this.horizonMs = Math.max(this.horizonMs, Math.floor(time / 1000) * 1000 + 1000);
      }
      keys.dropOldest(drop);
    }
  }
}

/** Record ids ascending, then text keys (their order does not matter). */
function idsFirstAscending(a: EventKey, b: EventKey): number {
  if (typeof a === 'number') return typeof b === 'number' ? a - b : -1;
  return typeof b === 'number' ? 1 : 0;
}
