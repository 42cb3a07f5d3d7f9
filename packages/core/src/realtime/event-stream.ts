import { ObservationError } from '../errors/observation-error.js';
import { Admission } from './admission.js';
import { readCatchUpWindows } from './catch-up.js';
import {
  asError,
  Connection,
  type ConnectionFailure,
  type ConnectionStatus,
  type ConnectionUser,
} from './connection.js';
import type { RealtimeContext } from './context.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { eventKey } from './event-key.js';
import type { RealtimeEvent } from './event-model.js';
import { type NormalizeFn, parseFrame } from './frame-parser.js';
import { type HistoryDirection, mergeCatchUp } from './ordered-merge.js';
import type { RestoredStream, StreamPosition } from './position.js';
import type { ResolvedOptions } from './subscribe-options.js';
import type { StateChangeInfo, SubscriptionStats } from './types.js';

export type { ConnectionFailure as StreamFailure, ConnectionStatus as StreamStatus } from './connection.js';

export interface DeliveryItem {
  event: RealtimeEvent;
  raw: unknown;
  source: 'live' | 'backfill';
  stream: EventStream;
  /** Admission order within its stream (set when admitted). */
  order: number;
}

/** What a stream shares with its subscription. */
export interface StreamHub {
  readonly context: RealtimeContext;
  readonly options: ResolvedOptions;
  readonly normalize: NormalizeFn;
  readonly queue: DeliveryQueue<DeliveryItem>;
  /** The history order learned from earlier catch-ups, for windows that carry no evidence. */
  historyOrder: HistoryDirection | undefined;
  readonly counters: Omit<SubscriptionStats, 'queued' | 'peakQueued'>;
  report(error: Error): void;
  statusChanged(stream: EventStream, info: StateChangeInfo): void;
  failed(stream: EventStream, failure: ConnectionFailure): void;
  opened(stream: EventStream): void;
}

export interface StreamSpec {
  /** For messages and positions: `extended` or `task 12`. */
  label: string;
  url(token: string): string;
  historyTasks: number[] | 'all';
  /** Where this stream's interest starts: catch-ups never read before it. */
  floorMs: number;
  /** Catch up from here on the first connection too (a stored position, a look-back, a new task). */
  startFromMs?: number;
  /** A stored position to resume from. */
  restored?: RestoredStream;
}

/**
 * The events of one socket: admission by identity, and a catch-up from history after every
 * (re)connect that reads back as far as the allowed lateness. Live frames that arrive during the
 * catch-up are held back and merged in time order, so the handler sees each event once. The
 * socket itself (heartbeat, backoff, auth) is the Connection's.
 */
export class EventStream implements ConnectionUser {
  private readonly admission: Admission;
  private readonly connection: Connection;
  private phase: 'buffering' | 'live' = 'buffering';
  private pending: DeliveryItem[] = [];
  private capacityReported = false;

  constructor(
    private readonly hub: StreamHub,
    readonly spec: StreamSpec,
  ) {
    const { options, context } = hub;
    this.admission = new Admission(
      options.allowedLatenessMs + options.overlapMs + 1_000,
      options.dedupeCapacity,
      spec.floorMs,
    );
    if (spec.restored) this.admission.restore(spec.restored);
    this.connection = new Connection(context, options, this);
  }

  get label(): string {
    return this.spec.label;
  }

  get status(): ConnectionStatus {
    return this.connection.status;
  }

  get isLive(): boolean {
    return this.connection.status === 'open' && this.phase === 'live';
  }

  start(): void {
    this.connection.start();
  }

  stop(): Promise<void> {
    return this.connection.stop();
  }

  /** The subscription's queue is full (`pause` policy): stop reading until it drains. */
  setQueuePressure(pressured: boolean): void {
    this.connection.setPaused('queue', pressured);
  }

  /** The handler is done with `item`: it counts for the position from now on. */
  delivered(item: DeliveryItem): void {
    this.admission.delivered(item.order, item.event.occurredAt.getTime());
  }

  /** Where to resume this stream after a restart. */
  position(): StreamPosition {
    return this.admission.position(this.hub.options.allowedLatenessMs, this.hub.options.overlapMs);
  }

  url(token: string): string {
    return this.spec.url(token);
  }

  report(error: Error): void {
    this.hub.report(error);
  }

  onStatus(_status: ConnectionStatus, info: StateChangeInfo): void {
    this.hub.statusChanged(this, info);
  }

  onFailed(failure: ConnectionFailure): void {
    this.hub.failed(this, failure);
  }

  onFrame(data: unknown): void {
    const counters = this.hub.counters;
    counters.received++;
    const parsed = parseFrame(data, this.hub.normalize);
    if (!parsed.ok) {
      counters.malformed++;
      this.hub.report(parsed.error);
      return;
    }
    const item: DeliveryItem = {
      event: parsed.event,
      raw: parsed.raw,
      source: 'live',
      stream: this,
      order: -1,
    };
    if (this.phase === 'buffering') {
      this.pending.push(item);
      if (this.pending.length >= this.hub.options.highWaterMark) this.connection.setPaused('pending', true);
      return;
    }
    if (this.admit(item)) this.hub.queue.push(item);
  }

  async onOpen(reconnect: boolean, signal: AbortSignal): Promise<Error | undefined> {
    const { options, context } = this.hub;
    if (reconnect) this.hub.counters.reconnects++;
    this.hub.opened(this);
    const startFrom = this.spec.startFromMs;
    if (!reconnect && startFrom === undefined) {
      // What came before the start was learnt before this socket opened.
      this.goLive();
      return undefined;
    }
    let from =
      !reconnect && startFrom !== undefined
        ? startFrom
        : this.admission.catchUpStart(options.allowedLatenessMs, options.overlapMs);
    const oldest = context.clock.now() - options.maxLookBackMs;
    // A second of grace: a look-back equal to the limit was computed a moment earlier.
    if (from < oldest - 1_000) {
      this.hub.report(
        new ObservationError(
          'BACKFILL_TRUNCATED',
          `Catching up ${this.spec.label} only from ${new Date(oldest).toISOString()}: events before that are older than maxLookBackMs (${options.maxLookBackMs} ms) and are not fetched`,
        ),
      );
    }
    from = Math.max(from, oldest);
    this.connection.setStatus('backfilling', {});
    try {
      await this.catchUp(from, signal);
      return undefined;
    } catch (error) {
      if (signal.aborted) return undefined;
      const failure = new ObservationError(
        'BACKFILL_FAILED',
        `Catching up ${this.spec.label} from history failed, reconnecting to try again: ${asError(error).message}`,
        { cause: error },
      );
      this.hub.report(failure);
      return failure;
    }
  }

  onClosed(): void {
    this.phase = 'buffering';
    this.pending = [];
    this.connection.setPaused('pending', false);
  }

  /**
   * A fresh (live) start: events of the lateness before it that the service had already published
   * are not for this subscription, but a later catch-up, which must read back that far for late
   * events, would deliver them. They are read once, before the socket opens, and known without
   * being delivered. Reading first is what makes this safe: everything read was published before
   * the socket existed, so nothing published after it (live, or only into history because the
   * socket dropped at once) can be mistaken for the past. The cost is the other way round: an
   * event published between this read and the socket's opening is not known, and a catch-up
   * delivers it (a replay of at most that moment, never a loss). If history cannot be read, the
   * start itself becomes the floor: no replay, at the cost of late events from just before it.
   * A stream that resumes from a position has nothing to learn.
   */
  async beforeFirstOpen(signal: AbortSignal): Promise<void> {
    if (this.spec.startFromMs !== undefined) return;
    const { options, context } = this.hub;
    try {
      for await (const window of this.readHistory(this.spec.floorMs, signal)) {
        for (const entry of window.items)
          this.admission.ignore(eventKey(entry.event), entry.event.occurredAt.getTime());
      }
    } catch (error) {
      if (signal.aborted) return;
      context.logger.warn('could not read what came before the start; later catch-ups start at the start', {
        stream: this.spec.label,
        error: asError(error).message,
      });
      this.admission.raiseFloor(context.clock.now() - options.overlapMs);
    }
  }

  /** Admission by identity: true when the item is new (and now has its order). */
  private admit(item: DeliveryItem): boolean {
    const order = this.admission.admit(eventKey(item.event), item.event.occurredAt.getTime());
    if (order === undefined) {
      this.hub.counters.duplicatesDropped++;
      return false;
    }
    item.order = order;
    if (this.admission.capacityReached && !this.capacityReported) {
      this.capacityReported = true;
      this.hub.report(
        new ObservationError(
          'DEDUPE_CAPACITY',
          `More than ${this.hub.options.dedupeCapacity} events of ${this.spec.label} fell within the allowed lateness: catch-ups now start later than the lateness asks, so an event published that late may be missed after a reconnect`,
        ),
      );
    }
    return true;
  }

  /** Frames that waited while the socket opened (or during the catch-up) are live events like any other. */
  private goLive(): void {
    this.phase = 'live';
    const early = this.pending;
    this.pending = [];
    for (const item of early) if (this.admit(item)) this.hub.queue.push(item);
    this.connection.setPaused('pending', false);
  }

  private readHistory(fromMs: number, signal: AbortSignal) {
    return readCatchUpWindows({
      context: this.hub.context,
      taskIds: this.spec.historyTasks,
      fromMs,
      concurrency: this.hub.options.backfillConcurrency,
      normalize: this.hub.normalize,
      knownOrder: (key) => this.admission.orderOf(key),
      onDuplicate: () => {
        this.hub.counters.duplicatesDropped++;
      },
      // Without evidence (basic form, one second, nothing seen yet) newest-first is the better
      // guess: it is how such history endpoints list events. Any evidence overrides it.
      fallbackDirection: () => this.hub.historyOrder ?? 'desc',
      onDirection: (direction) => {
        this.hub.historyOrder = direction;
      },
      onMalformed: (error) => {
        this.hub.counters.malformed++;
        this.hub.report(error);
      },
      signal,
    });
  }

  private async catchUp(fromMs: number, signal: AbortSignal): Promise<void> {
    const stopped = aborted(signal);
    for await (const window of this.readHistory(fromMs, signal)) {
      let items: DeliveryItem[] = window.items.map((entry) => ({
        ...entry,
        source: 'backfill',
        stream: this,
        order: -1,
      }));
      if (window.final) {
        items = mergeCatchUp(items, this.pending);
        this.pending = [];
      }
      for (const item of items) {
        if (!(await this.queueWithRoom(item, signal, stopped))) return;
      }
    }
    // Live frames that came in while the last window was being delivered.
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      for (const item of batch) {
        if (!(await this.queueWithRoom(item, signal, stopped))) return;
      }
    }
    this.goLive();
  }

  /** Admits and queues one catch-up item, waiting for room under the `pause` policy. */
  private async queueWithRoom(
    item: DeliveryItem,
    signal: AbortSignal,
    stopped: Promise<void>,
  ): Promise<boolean> {
    if (!this.admit(item)) return true;
    const { queue, options } = this.hub;
    if (options.overflow === 'pause' && queue.length >= options.highWaterMark) {
      await Promise.race([queue.waitForRoom(), stopped]);
      if (signal.aborted) return false;
    }
    queue.push(item);
    return true;
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
