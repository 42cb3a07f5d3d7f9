import { type Clock, sleepNotNeeded } from '../ports.js';

/**
 * What an acknowledgement that does not come means. A handler's promise that rejects (or a
 * handler that throws) failed; one still pending `deadlineMs` after the call is late, and its
 * settling afterwards is ignored. Either is reported once per event (the first time), then the
 * event is released (it counts as handled: the position moves past it) or, with `retry`, handed
 * over again (attempt + 1) until `attempts` calls were made, and then released.
 */
export interface AckPolicy {
  deadlineMs: number;
  attempts: number;
  retry: boolean;
  /** Whether a late unit is handed over again (default: as `retry`). */
  retryLate?: boolean;
  /**
   * The pause before attempt 2, 3… (ms, on `clock`); without it the next attempt comes at once.
   * The unit keeps its `maxInFlight` slot and stays unacknowledged while it waits: the position
   * must not pass an event that is still to be tried.
   */
  retryPausesMs?: readonly number[];
  clock: Clock;
}

/** What the queue tells the sink about the first failure of a unit (an event or a batch). */
export interface Failure {
  /** `failed`: the handler threw or rejected (`error` is why); `late`: not settled in time. */
  reason: 'failed' | 'late';
  /** The attempt that failed (1 the first time). */
  attempt: number;
  /** True when the unit is handed over again; false: it is released (counts as handled). */
  again: boolean;
  /** With `again` and a pause before the next attempt: how long it waits (ms). */
  pauseMs?: number;
}

/** A unit core let go without success: its last attempt failed, or the policy released it at once. */
export interface GaveUp {
  /** Why the last attempt did not count: it failed (`error` is why) or was late. */
  reason: 'failed' | 'late';
  /** Calls made, the last one included. */
  attempts: number;
  /** The last failure's error (undefined when late). */
  error: unknown;
  /** When the first attempt failed and when core gave up, on the policy's clock. */
  firstFailedMs: number;
  gaveUpMs: number;
}

/**
 * The one place events wait for the host, and the one owner of its acknowledgements. Events are
 * handed over strictly in push order, one by one (`deliver`) or in batches (`deliverBatch`). A
 * handler that returns a promise acknowledges its events when the promise settles; one that
 * returns nothing acknowledges them at once (a synchronous handler is called straight from `push`,
 * so a fast consumer adds no latency). With the `ack` policy, a handler that throws or rejects, or
 * whose promise is not settled by the deadline, is reported once per unit and released or handed
 * over again (`AckPolicy`); a synchronous handler costs no timer, and the promises in flight share
 * one timer for the oldest deadline.
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
export interface DeliveryQueueOptions {
  highWaterMark: number;
  overflow: 'pause' | 'drop-oldest';
  /** Units (events, or batches) handed over and not acknowledged, at most (default 1). */
  maxInFlight?: number;
  /** Events per batch and the longest wait for one to fill: the port's `batch` is called instead of `one`. */
  batch?: { size: number; waitMs: number; clock: Clock };
  /** With a port that prepares: events prepared ahead of the handler at most (default 64). */
  prepareAhead?: number;
  /** Deadline and attempts; without it a promise is awaited however long, and a failure releases. */
  ack?: AckPolicy;
}

/** How the queue hands events to the host. */
export interface DeliverPort<T> {
  /**
   * One event to the handler; `attempt` is 1, then 2, 3… when it is handed over again. `signal`
   * aborts when the queue stops waiting for this attempt while it is still out (late, or closed).
   */
  one(item: T, attempt: number, signal: AbortSignal): void | PromiseLike<void>;
  /** With the `batch` option: one batch to the handler instead. */
  batch?(items: T[], attempt: number, signal: AbortSignal): void | PromiseLike<void>;
  /** False for an event the host does not want: it completes in its place without a handler call. */
  wanted?(item: T): boolean;
  /**
   * A stage before the handler (media): started as the event leaves the waiting line, up to
   * `prepareAhead` at once; the event is handed over once it and every earlier one are ready, so
   * the queue alone owns the order. Must not reject.
   */
  prepare?(item: T): Promise<void>;
  /**
   * A unit handed over is done (acknowledged, or let go by the policy), `one`'s item or `batch`'s:
   * the one place the port hears of it, a handler that returned nothing included.
   */
  finished?(items: T[]): void;
  /**
   * The attempt a unit is first handed over with in this run (1 without it): after a restart, one
   * more than the calls earlier runs made (from the record of unfinished units). The unit's attempt
   * counts on from there, so a crash does not give a failing unit a fresh set of them.
   */
  firstAttempt?(items: T[]): number;
  /**
   * Discarded events with the same key waiting behind the same handed-over event keep only the
   * newest (a position only needs the latest), so a handler that never settles cannot make
   * `drop-oldest` hold more than one entry per key per event in flight.
   */
  skipKey?(item: T): unknown;
}

/** Where the queue reports what became of each event, in one place. */
export interface CompletionSink<T> {
  /** Acknowledged (or passed over as unwanted), whether or not it threw; in push order. */
  delivered(item: T): void;
  /** Discarded by `drop-oldest`, at the moment it is discarded. */
  dropped(item: T): void;
  /** The same discarded event once every event before it completed (in push order, like delivered). */
  skipped(item: T): void;
  /**
   * The handler threw, rejected or did not settle in time for these events; once per unit, at its
   * first failure (`error` is undefined when it was late). They are delivered once released.
   */
  failed(error: unknown, items: T[], failure: Failure): void;
  /**
   * A unit that failed is released without success (once, right before its events complete): the
   * host may keep them, since the position is about to pass them.
   */
  gaveUp?(items: T[], gaveUp: GaveUp): void;
  /** `pause` pressure on or off: whether the sockets should stop reading. */
  pressure(paused: boolean): void;
}

/** An event handed over, passed over or skipped, and not yet reported; in push order. */
interface Pending<T> {
  item: T;
  settled: boolean;
  skipped: boolean;
}

/** An event that left the waiting line for the prepare stage; handed over in this order. */
interface Staged<T> {
  item: T;
  wanted: boolean;
  ready: boolean;
  /** Its place among the pending events, taken when it was staged, so completion stays in push order. */
  entry: Pending<T>;
}

/**
 * Events handed over together (one event, or a batch) and not finished: what the deadline and the
 * attempts apply to. Only made for a handler that returned a promise (or threw).
 */
interface Unit<T> {
  items: T[];
  entries: Pending<T>[];
  /** The attempt being made, counting those of earlier runs (see `DeliverPort.firstAttempt`). */
  attempt: number;
  /** The attempt being awaited: aborted when the queue stops waiting for it (late, or closed). */
  signal: AbortController;
  /** Whether it holds one of the `maxInFlight` slots (a batch from its opening, an event once it is awaited). */
  slot: boolean;
  /** The first failure was reported. */
  reported: boolean;
  /** When the attempt being awaited is late, on the policy's clock. */
  due: number;
  /** When its first attempt failed, on the policy's clock. */
  firstFailedMs: number;
}

/** A batch being filled; its events are already in `pending`. */
interface OpenBatch<T> {
  items: T[];
  entries: Pending<T>[];
  timer: AbortController;
}

/** Events prepared ahead of the handler by default: snapshots written 5 s late at 10 events/s keep their rate. */
export const defaultPrepareAhead = 64;

export class DeliveryQueue<T> {
  // A head index instead of Array#shift keeps dequeuing O(1) for long queues.
  private items: (T | undefined)[] = [];
  private head = 0;
  /** Being prepared or prepared, not yet handed over; at most `ahead`. */
  private staged: Staged<T>[] = [];
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
  /** A close's wait for the next unit out to be done (see `nextDone`). */
  private doneWaiters: (() => void)[] = [];
  private peak = 0;
  private draining = false;
  /** Set by `hold`: nothing more is handed over, what is out may still settle. */
  private held = false;
  private readonly maxInFlight: number;
  private readonly ahead: number;
  /** Events handed over (or passed over) and not yet reported, at most. */
  private readonly capacity: number;
  /** Units whose promise is awaited, oldest first: with one deadline for all, also the order they fall due. */
  private waiting = new Set<Unit<T>>();
  /** The one timer of the queue, for the oldest awaited unit's deadline (never one per event). */
  private timer: AbortController | undefined;
  /** Units waiting out a pause before their next attempt, each with the timer of its pause. */
  private pausing = new Map<Unit<T>, AbortController>();

  constructor(
    private readonly options: DeliveryQueueOptions,
    private readonly port: DeliverPort<T>,
    private readonly sink: CompletionSink<T>,
  ) {
    this.maxInFlight = options.maxInFlight ?? 1;
    this.ahead = port.prepare ? (options.prepareAhead ?? defaultPrepareAhead) : 0;
    this.capacity = this.maxInFlight * (options.batch?.size ?? 1) + options.highWaterMark;
  }

  /** Events waiting, not yet handed to the handler (nor being prepared for it). */
  get length(): number {
    return this.items.length - this.head;
  }

  /** Events being prepared, or handed to the handler and not yet reported delivered (finished or not). */
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
    if (this.closed || this.held) return;
    // The fast path of a host that keeps up: nothing waits or is pending, so the event goes
    // straight to the handler (a synchronous one is done before push returns).
    if (
      this.length === 0 &&
      this.pending.length === 0 &&
      !this.draining &&
      this.running < this.maxInFlight &&
      this.options.batch === undefined &&
      this.ahead === 0 &&
      (this.port.wanted === undefined || this.port.wanted(item))
    ) {
      if (this.peak === 0) this.peak = 1;
      this.draining = true;
      try {
        this.hand(item, undefined);
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
      this.sink.pressure(true);
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
    this.timer?.abort();
    this.timer = undefined;
    for (const pause of this.pausing.values()) pause.abort();
    this.pausing.clear();
    for (const unit of this.waiting) unit.signal.abort(closedReason());
    this.waiting = new Set();
    this.open = undefined;
    this.items = [];
    this.head = 0;
    this.staged = [];
    this.pending = [];
    this.handling = 0;
    this.running = 0;
    this.tailSkips.clear();
    this.releaseWaiters();
    for (const resolve of this.doneWaiters) resolve();
    this.doneWaiters = [];
  }

  private drain(): void {
    // A batch handler that returns at once settles from inside this loop: the loop goes on
    // instead of nesting (one nested call per batch would exhaust the stack in a burst).
    if (this.draining || this.held) return;
    this.draining = true;
    try {
      this.drainLoop();
    } finally {
      this.draining = false;
    }
  }

  private drainLoop(): void {
    const batched = this.options.batch !== undefined;
    const staging = this.ahead > 0;
    // A handler that finished synchronously (or an unwanted event) does not hold a slot, or a few
    // of them could stall a batch that waits for more; finished events waiting for an earlier one
    // are bounded by the mark instead, so memory stays bounded while one promise hangs. A staged
    // event already holds its place within that bound (the stage fills only up to it).
    while (!this.closed) {
      if (staging) this.fillStage();
      let item: T;
      let wanted: boolean;
      let entry: Pending<T> | undefined;
      if (staging) {
        const next = this.staged[0];
        if (next === undefined || !next.ready) break;
        ({ item, wanted, entry } = next);
      } else {
        if (this.length === 0 || this.handling >= this.capacity) break;
        item = this.items[this.head] as T;
        wanted = this.port.wanted === undefined || this.port.wanted(item);
      }
      if (wanted && !batched && this.running >= this.maxInFlight) break;
      if (wanted && batched && this.open === undefined && this.running >= this.maxInFlight) break;
      if (staging) this.staged.shift();
      else {
        this.take();
        this.relieve();
      }
      if (!wanted) this.pass(item, entry);
      else if (batched) this.addToBatch(item, entry);
      else this.hand(item, entry);
    }
  }

  /** Moves waiting events into the prepare stage while it has room, and starts preparing them. */
  private fillStage(): void {
    const prepare = this.port.prepare as NonNullable<DeliverPort<T>['prepare']>;
    while (this.length > 0 && this.staged.length < this.ahead && this.handling < this.capacity) {
      const item = this.take() as T;
      this.relieve();
      const wanted = this.port.wanted === undefined || this.port.wanted(item);
      const staged: Staged<T> = { item, wanted, ready: !wanted, entry: this.place(item) };
      this.staged.push(staged);
      if (!wanted) continue;
      const stage = this.staged;
      const ready = () => {
        staged.ready = true;
        // A close replaced the stage: the event is not handed over.
        if (stage === this.staged && staged === stage[0]) this.drain();
      };
      prepare(item).then(ready, ready);
    }
  }

  /** A place among the pending events, in push order, for an event handed over (or passed over). */
  private place(item: T): Pending<T> {
    const entry: Pending<T> = { item, settled: false, skipped: false };
    this.pending.push(entry);
    this.tailSkips.clear();
    this.handling++;
    return entry;
  }

  /** An event the host does not want: done in its place. */
  private pass(item: T, staged: Pending<T> | undefined): void {
    if (staged) {
      staged.settled = true;
      this.report();
      return;
    }
    if (this.pending.length === 0) {
      this.sink.delivered(item);
      return;
    }
    this.place(item).settled = true;
  }

  private hand(item: T, staged: Pending<T> | undefined): void {
    const signal = new AbortController();
    const attempt = this.port.firstAttempt?.([item]) ?? 1;
    let result: void | PromiseLike<void>;
    try {
      result = this.port.one(item, attempt, signal.signal);
    } catch (error) {
      // Slow path: the handler threw. The drain checked for a free slot before handing it over,
      // so a retry that returns a promise may take it.
      this.fail(this.unit([item], [staged ?? this.place(item)], false, signal, attempt), error, 'failed');
      return;
    }
    const isPromise = isThenable(result);
    // Done at once: no unit is made for it, so the port hears of it here (with a record of units out).
    if (!isPromise) this.port.finished?.([item]);
    if (!isPromise && staged === undefined && this.pending.length === 0) {
      // The fast path: nothing earlier is pending, so a synchronous handler is done in order.
      this.sink.delivered(item);
      return;
    }
    const entry = staged ?? this.place(item);
    if (isPromise) {
      this.running++;
      this.await(this.unit([item], [entry], true, signal, attempt), result as PromiseLike<void>);
      return;
    }
    entry.settled = true;
    if (staged) this.report();
  }

  private unit(
    items: T[],
    entries: Pending<T>[],
    slot: boolean,
    signal: AbortController,
    attempt: number,
  ): Unit<T> {
    return { items, entries, attempt, signal, slot, reported: false, due: 0, firstFailedMs: 0 };
  }

  /** Calls the handler for the unit's current attempt, with that attempt's signal. */
  private call(unit: Unit<T>): void | PromiseLike<void> {
    const { signal } = unit.signal;
    if (this.options.batch === undefined) return this.port.one(unit.items[0] as T, unit.attempt, signal);
    return (this.port.batch as NonNullable<DeliverPort<T>['batch']>)(unit.items, unit.attempt, signal);
  }

  private addToBatch(item: T, staged: Pending<T> | undefined): void {
    const entry = staged ?? this.place(item);
    let batch = this.open;
    if (batch === undefined) {
      batch = { items: [], entries: [], timer: new AbortController() };
      this.open = batch;
      this.running++;
      const { clock, waitMs } = this.options.batch as NonNullable<DeliveryQueueOptions['batch']>;
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
    batch.timer.abort(sleepNotNeeded);
    const attempt = this.port.firstAttempt?.(batch.items) ?? 1;
    this.attempt(this.unit(batch.items, batch.entries, true, new AbortController(), attempt));
  }

  /**
   * Calls the handler for the unit's current attempt: a promise is awaited (the unit takes a slot
   * if it has none), anything else settles it at once, a throw fails it. A single event's first
   * attempt goes through `hand` instead, which makes no unit for a handler done at once.
   */
  private attempt(unit: Unit<T>): void {
    let result: void | PromiseLike<void>;
    try {
      result = this.call(unit);
    } catch (error) {
      this.fail(unit, error, 'failed');
      return;
    }
    if (!isThenable(result)) {
      this.release(unit);
      return;
    }
    if (!unit.slot) {
      unit.slot = true;
      this.running++;
    }
    this.await(unit, result);
  }

  private await(unit: Unit<T>, result: PromiseLike<void>): void {
    const pending = this.pending;
    const attempt = unit.attempt;
    const ack = this.options.ack;
    if (ack) {
      unit.due = ack.clock.now() + ack.deadlineMs;
      this.waiting.add(unit);
      this.arm(ack);
    } else this.waiting.add(unit);
    result.then(
      () => this.settled(unit, attempt, pending, false, undefined),
      (error: unknown) => this.settled(unit, attempt, pending, true, error),
    );
  }

  /**
   * An attempt's promise settled: ignored once the unit was released or handed over again, and
   * after a close (`pending` is the list it was put in: a close replaces it).
   */
  private settled(
    unit: Unit<T>,
    attempt: number,
    pending: Pending<T>[],
    failed: boolean,
    error: unknown,
  ): void {
    if (this.closed || pending !== this.pending || unit.attempt !== attempt || !this.waiting.delete(unit))
      return;
    if (failed) this.fail(unit, error, 'failed');
    else this.release(unit);
  }

  /** A failed or late attempt: reported the first time, then handed over again or released. */
  private fail(unit: Unit<T>, error: unknown, reason: Failure['reason']): void {
    const ack = this.options.ack;
    const retry = reason === 'late' ? (ack?.retryLate ?? ack?.retry) : ack?.retry;
    // Counting the calls of earlier runs (the port's first attempt): the policy's limit is per unit.
    const made = unit.attempt;
    const again = retry === true && made < (ack?.attempts ?? 1);
    const pauseMs = again ? (ack?.retryPausesMs?.[made - 1] ?? 0) : 0;
    if (!unit.reported) {
      unit.reported = true;
      unit.firstFailedMs = ack?.clock.now() ?? 0;
      const failure: Failure = { reason, attempt: made, again };
      if (pauseMs > 0) failure.pauseMs = pauseMs;
      this.sink.failed(error, unit.items, failure);
      if (this.closed) return;
    }
    // After the report, which may still ask the host where the attempt is held.
    if (reason === 'late') unit.signal.abort(lateReason(made, ack?.deadlineMs ?? 0));
    if (this.closed) return;
    if (!again) {
      this.giveUp(unit, made, error, reason);
      return;
    }
    if (this.held) {
      // Not handed over again while a close waits for what is out: it stays unacknowledged.
      this.freeSlot(unit);
      return;
    }
    if (pauseMs > 0) this.pause(unit, pauseMs, ack as AckPolicy);
    else this.retry(unit);
  }

  /**
   * Waits before the next attempt. The unit keeps (or takes) its slot meanwhile: events after it
   * may still go out as slots allow, and complete after it in order, so the position waits for it.
   */
  private pause(unit: Unit<T>, ms: number, ack: AckPolicy): void {
    if (!unit.slot) {
      // A handler that threw synchronously held no slot; the drain checked one was free.
      unit.slot = true;
      this.running++;
    }
    const timer = new AbortController();
    this.pausing.set(unit, timer);
    ack.clock.sleep(ms, timer.signal).then(
      () => {
        if (this.pausing.get(unit) !== timer) return;
        this.pausing.delete(unit);
        this.retry(unit);
      },
      // Aborted: the queue closed, or a hold let go of the unit.
      () => undefined,
    );
  }

  /** The next attempt of a unit that failed. */
  private retry(unit: Unit<T>): void {
    unit.attempt++;
    unit.signal = new AbortController();
    this.attempt(unit);
  }

  /** The policy lets go of a unit that failed: the sink hears of it once, then its events complete. */
  private giveUp(unit: Unit<T>, made: number, error: unknown, reason: Failure['reason']): void {
    const now = this.options.ack?.clock.now() ?? 0;
    this.sink.gaveUp?.(unit.items, {
      reason,
      attempts: made,
      error: reason === 'failed' ? error : undefined,
      firstFailedMs: unit.reported ? unit.firstFailedMs : now,
      gaveUpMs: now,
    });
    if (this.closed) return;
    this.release(unit);
  }

  /** The unit is done (acknowledged, or let go by the policy): its events complete in order. */
  private release(unit: Unit<T>): void {
    this.port.finished?.(unit.items);
    for (const entry of unit.entries) entry.settled = true;
    this.freeSlot(unit);
    this.report();
    this.drain();
  }

  /** Arms the queue's one timer for the oldest awaited unit, unless it is armed already. */
  private arm(ack: AckPolicy): void {
    if (this.timer !== undefined) return;
    const oldest = this.waiting.values().next().value;
    if (oldest === undefined) return;
    const timer = new AbortController();
    this.timer = timer;
    ack.clock.sleep(Math.max(0, oldest.due - ack.clock.now()), timer.signal).then(
      () => {
        if (this.timer !== timer) return;
        this.timer = undefined;
        this.expire(ack);
      },
      // Aborted: the queue closed.
      () => undefined,
    );
  }

  /**
   * The timer fired: the units that are due are late. Units that settled meanwhile left the set
   * without touching the timer (so a steady stream sets one timer per deadline, not per event);
   * it is armed again for the oldest one left.
   */
  private expire(ack: AckPolicy): void {
    const now = ack.clock.now();
    for (const unit of this.waiting) {
      if (unit.due > now) break;
      this.waiting.delete(unit);
      this.fail(unit, undefined, 'late');
      if (this.closed) return;
    }
    this.arm(ack);
  }

  private skip(item: T): void {
    this.sink.dropped(item);
    if (this.pending.length === 0) {
      this.sink.skipped(item);
      return;
    }
    // Handed-over (or staged) events come before it: it passes only once they completed.
    const key = this.port.skipKey?.(item);
    const earlier = key === undefined ? undefined : this.tailSkips.get(key);
    if (earlier) {
      earlier.item = item;
      return;
    }
    const entry: Pending<T> = { item, settled: true, skipped: true };
    this.pending.push(entry);
    if (key !== undefined) this.tailSkips.set(key, entry);
  }

  /**
   * Hands nothing more over (what waits stays unacknowledged, outside the position) while what is
   * out may still settle: the first step of a close that lets the handler finish its work.
   */
  hold(): void {
    this.held = true;
    // A unit waiting out a pause is not tried again: it stays unacknowledged, outside the
    // position, and its slot is let go so a graceful close does not wait for the pause.
    for (const [unit, pause] of this.pausing) {
      pause.abort();
      if (unit.slot) this.running--;
    }
    this.pausing.clear();
    // A batch still filling is dropped, as a close drops it: its events were never handed over.
    if (this.open !== undefined) {
      this.open.timer.abort();
      this.open = undefined;
      this.running--;
    }
  }

  /** Units handed over whose acknowledgement has not come. */
  get awaiting(): number {
    return this.running;
  }

  /**
   * Resolves when the next unit out is done with (acknowledged, or let go), or at close: what a
   * graceful close waits on after `hold`, instead of polling `awaiting`.
   */
  nextDone(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.doneWaiters.push(resolve));
  }

  private freeSlot(unit: Unit<T>): void {
    if (!unit.slot) return;
    this.running--;
    if (this.doneWaiters.length === 0) return;
    const waiters = this.doneWaiters;
    this.doneWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /**
   * Events acknowledged (or released) but not reported yet because an earlier one is still out, in
   * push order. A position saved now may count them done beside what was reported: a restart then
   * sends again only what the host had not finished, not what finished after it (a graceful stop
   * with acknowledgements out of order).
   */
  settledAhead(): T[] {
    const ahead: T[] = [];
    for (const entry of this.pending) if (entry.settled && !entry.skipped) ahead.push(entry.item);
    return ahead;
  }

  /** Reports the settled events at the front, in order; stops at the first unsettled one. */
  private report(): void {
    let done = 0;
    while (done < this.pending.length && (this.pending[done] as Pending<T>).settled) {
      const entry = this.pending[done] as Pending<T>;
      done++;
      if (entry.skipped) {
        this.sink.skipped(entry.item);
      } else {
        this.handling--;
        this.sink.delivered(entry.item);
      }
      if (this.closed) return;
    }
    // maxInFlight bounds the list (skipped entries only come after handed-over ones), so splice is cheap.
    if (done > 0) {
      this.pending.splice(0, done);
      if (this.pending.length === 0) this.tailSkips.clear();
    }
  }

  /** Called whenever an item leaves the waiting line (for the stage or the handler). */
  private relieve(): void {
    const length = this.length;
    if (length < this.options.highWaterMark) this.releaseWaiters();
    if (this.pressured && length <= Math.floor(this.options.highWaterMark / 2)) {
      this.pressured = false;
      this.sink.pressure(false);
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

/**
 * What aborts an attempt's signal: the queue stopped waiting for it while it was out. The names
 * are the platform's (`AbortSignal.timeout` aborts with a `TimeoutError`), so a host passing the
 * signal on (to fetch, say) gets the error it knows. A host that keeps books of what is out lets
 * go of the attempt then, instead of guessing from the queue's limits.
 */
function lateReason(attempt: number, deadlineMs: number): DOMException {
  return new DOMException(
    `attempt ${attempt} did not finish within ${deadlineMs / 1000} s: core stopped waiting for it`,
    'TimeoutError',
  );
}

function closedReason(): DOMException {
  return new DOMException('the subscription closed while this attempt was out', 'AbortError');
}

export function isThenable(value: unknown): value is PromiseLike<void> {
  return value !== undefined && value !== null && typeof (value as PromiseLike<void>).then === 'function';
}
