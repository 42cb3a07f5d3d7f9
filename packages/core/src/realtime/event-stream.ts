import { AuthError } from '../errors/auth-error.js';
import { HttpError } from '../errors/http-error.js';
import { ObservationError } from '../errors/observation-error.js';
import { readHistoryWindows } from './backfill.js';
import { backoffDelay } from './backoff.js';
import type { RealtimeContext } from './context.js';
import { isAfterCursor } from './cursor.js';
import { DedupeWindow } from './dedupe-window.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { eventKey } from './event-key.js';
import type { RealtimeEvent } from './event-model.js';
import { type NormalizeFn, parseFrame } from './frame-parser.js';
import { type Heartbeat, startHeartbeat } from './heartbeat.js';
import { type HistoryDirection, mergeCatchUp } from './ordered-merge.js';
import { openSocket, type RealtimeSocket, UpgradeFailure } from './socket-adapter.js';
import type { ResolvedOptions } from './subscribe-options.js';
import type { StateChangeInfo, SubscriptionStats } from './types.js';

/** Life of one socket (one per subscription in the extended form, one per task in the basic form). */
export type StreamStatus = 'connecting' | 'open' | 'reconnecting' | 'backfilling' | 'stopped';

export interface DeliveryItem {
  event: RealtimeEvent;
  raw: unknown;
  source: 'live' | 'backfill';
  stream: EventStream;
}

/** Refusals that waiting cannot fix: the subscription decides (fail, or fall back to basic). */
export type StreamFailure = { kind: 'auth'; error: AuthError } | { kind: 'not-found'; error: HttpError };

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
  failed(stream: EventStream, failure: StreamFailure): void;
  opened(stream: EventStream): void;
}

export interface StreamSpec {
  /** For messages: `extended` or `task 12`. */
  label: string;
  url(token: string): string;
  historyTasks: number[] | 'all';
  /**
   * Catch up from history on the first connection too: from a persisted cursor (`sinceId` and
   * `filter` drop what the cursor already covers) or from when a newly listed task may have started.
   */
  catchUpFrom?: { ms: number; sinceId?: number; filter: boolean };
}

/**
 * One socket kept alive for as long as the subscription wants it: connect, watch with a
 * heartbeat, and after every drop reconnect with backoff (one attempt at a time, never two
 * sockets at once) and catch up from history before live events flow again. Live frames that
 * arrive during the catch-up are held back and merged in time order, so the handler sees each
 * event once, in order.
 */
export class EventStream {
  status: StreamStatus = 'connecting';
  /** The last event of this stream the handler has seen, for the subscription cursor. */
  lastDelivered: RealtimeEvent | undefined;
  /** Where this stream started, the cursor floor until it delivers something. */
  readonly startMs: number;

  private readonly dedupe: DedupeWindow;
  private readonly controller = new AbortController();
  private readonly aborted: Promise<void>;
  private socket: RealtimeSocket | undefined;
  private heartbeat: Heartbeat | undefined;
  private phase: 'buffering' | 'live' = 'buffering';
  private pending: DeliveryItem[] = [];
  private readonly pauseReasons = new Set<'queue' | 'pending'>();
  private socketPaused = false;
  private running: Promise<void> | undefined;
  private everOpened = false;
  private firstOpenMs: number | undefined;
  /**
   * Events before this point are not for this subscription: the persisted `since` cursor, or the
   * first live event (a catch-up after an early drop must not replay what preceded the start).
   */
  private floor: { ms: number; id: number | undefined } | undefined;
  private readonly floorFromFirstEvent: boolean;
  private dropReason: string | undefined;

  constructor(
    private readonly hub: StreamHub,
    readonly spec: StreamSpec,
  ) {
    const { options, context } = hub;
    this.dedupe = new DedupeWindow(options.overlapMs + 1_000, options.dedupeCapacity);
    this.startMs = spec.catchUpFrom?.ms ?? context.clock.now();
    if (spec.catchUpFrom?.filter) this.floor = { ms: spec.catchUpFrom.ms, id: spec.catchUpFrom.sinceId };
    this.floorFromFirstEvent = spec.catchUpFrom === undefined;
    this.aborted = new Promise((resolve) =>
      this.controller.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
  }

  get isLive(): boolean {
    return this.status === 'open' && this.phase === 'live';
  }

  start(): void {
    this.running ??= this.run().catch((error: unknown) => {
      // Only a bug gets here; report it rather than leaving an unhandled rejection.
      if (!this.controller.signal.aborted) this.hub.report(asError(error));
    });
  }

  /** Stops for good: resolves when the socket is closed and no timer of this stream is left. */
  async stop(): Promise<void> {
    if (!this.controller.signal.aborted) this.controller.abort();
    this.heartbeat?.stop();
    this.socket?.terminate();
    await this.running;
    this.status = 'stopped';
  }

  /** The subscription's queue is full (`pause` policy): stop reading until it drains. */
  setQueuePressure(pressured: boolean): void {
    if (pressured) this.pauseReasons.add('queue');
    else this.pauseReasons.delete('queue');
    this.applyPause();
  }

  private async run(): Promise<void> {
    const { context, options } = this.hub;
    const signal = this.controller.signal;
    let attempt = 0;
    let forceRefresh = false;
    let authRetried = false;
    while (!signal.aborted) {
      let socket: RealtimeSocket;
      try {
        const token = await context.getToken({ forceRefresh, signal });
        forceRefresh = false;
        this.phase = 'buffering';
        this.pending = [];
        socket = await openSocket(context.WebSocket, this.spec.url(token), this.listeners, signal);
      } catch (error) {
        if (signal.aborted) return;
        const status = error instanceof UpgradeFailure ? error.status : undefined;
        if (status === 401 || status === 403 || AuthError.isInstance(error)) {
          // A refused token is fixed by logging in again once, never by hammering the server.
          if (status !== undefined && context.canRefreshToken && !authRetried) {
            authRetried = true;
            forceRefresh = true;
            continue;
          }
          this.hub.failed(this, { kind: 'auth', error: this.authError(status, error) });
          return;
        }
        if (status === 404) {
          this.hub.failed(this, { kind: 'not-found', error: this.upgradeHttpError(404, error) });
          return;
        }
        attempt++;
        const cause = status === undefined ? asError(error) : this.upgradeHttpError(status, error);
        this.setStatus(this.everOpened ? 'reconnecting' : 'connecting', { attempt, error: cause });
        if (!(await this.wait(backoffDelay(attempt, options.backoff)))) return;
        continue;
      }

      authRetried = false;
      this.socket = socket;
      this.dropReason = undefined;
      const openedAt = context.clock.now();
      this.firstOpenMs ??= openedAt;
      this.heartbeat = startHeartbeat({
        intervalMs: options.heartbeatMs,
        canPing: socket.canPing,
        ping: () => socket.ping(),
        clock: context.clock,
        isPaused: () => this.socketPaused,
        onDead: (reason) => {
          this.dropReason = `heartbeat: ${reason}`;
          context.logger.debug('realtime connection is half-open, reconnecting', {
            stream: this.spec.label,
            reason,
          });
          socket.terminate();
        },
      });
      if (this.hub.queue.isPressured) this.pauseReasons.add('queue');
      this.applyPause();
      const isReconnect = this.everOpened;
      if (isReconnect) this.hub.counters.reconnects++;
      this.hub.opened(this);

      const catchUpFrom = this.catchUpStart();
      if (catchUpFrom !== undefined) {
        this.setStatus('backfilling', {});
        try {
          await this.catchUp(catchUpFrom);
        } catch (error) {
          if (signal.aborted) {
            await this.teardown(socket);
            return;
          }
          const failure = new ObservationError(
            'BACKFILL_FAILED',
            `Catching up ${this.spec.label} from history failed, reconnecting to try again: ${asError(error).message}`,
            { cause: error },
          );
          this.hub.report(failure);
          socket.terminate();
          await this.teardown(socket);
          attempt++;
          this.setStatus('reconnecting', { attempt, error: failure });
          if (!(await this.wait(backoffDelay(attempt, options.backoff)))) return;
          continue;
        }
      } else {
        // Frames that came in the same read as the upgrade answer were buffered while the
        // socket opened; they are live events like any other.
        this.phase = 'live';
        const early = this.pending;
        this.pending = [];
        for (const item of early) if (this.accept(item)) this.hub.queue.push(item);
        if (this.pauseReasons.delete('pending')) this.applyPause();
      }
      this.everOpened = true;
      this.setStatus('open', {});

      const closed = await this.teardown(socket);
      if (signal.aborted) return;
      // Only a connection that held for a while resets the backoff, so a server that accepts
      // and drops at once does not get an instant reconnect every time.
      if (context.clock.now() - openedAt >= options.stableAfterMs) attempt = 0;
      attempt++;
      const why =
        this.dropReason ?? `closed with code ${closed.code}${closed.reason ? ` (${closed.reason})` : ''}`;
      this.setStatus('reconnecting', {
        attempt,
        error: new ObservationError(
          'CONNECTION_LOST',
          `Realtime connection for ${this.spec.label} lost: ${why}`,
        ),
      });
      if (!(await this.wait(backoffDelay(attempt, options.backoff)))) return;
    }
  }

  private readonly listeners = {
    onMessage: (data: unknown): void => this.onFrame(data),
    onPong: (): void => this.heartbeat?.activity(),
  };

  private onFrame(data: unknown): void {
    this.heartbeat?.activity();
    const counters = this.hub.counters;
    counters.received++;
    const parsed = parseFrame(data, this.hub.normalize);
    if (!parsed.ok) {
      counters.malformed++;
      this.hub.report(parsed.error);
      return;
    }
    const item: DeliveryItem = { event: parsed.event, raw: parsed.raw, source: 'live', stream: this };
    if (this.floor === undefined && this.floorFromFirstEvent) {
      this.floor = { ms: parsed.event.occurredAt.getTime(), id: undefined };
    }
    if (this.phase === 'buffering') {
      this.pending.push(item);
      if (this.pending.length >= this.hub.options.highWaterMark && !this.pauseReasons.has('pending')) {
        this.pauseReasons.add('pending');
        this.applyPause();
      }
      return;
    }
    if (this.accept(item)) this.hub.queue.push(item);
  }

  /** Dedupe (and the `since` filter): true when the item is new and should be delivered. */
  private accept(item: DeliveryItem): boolean {
    const event = item.event;
    const time = event.occurredAt.getTime();
    if (this.floor && !isAfterCursor(event, this.floor.ms, this.floor.id)) return false;
    if (!this.dedupe.add(eventKey(event), time)) {
      this.hub.counters.duplicatesDropped++;
      return false;
    }
    return true;
  }

  /** Where the catch-up of this connection starts, or undefined when nothing can have been missed. */
  private catchUpStart(): number | undefined {
    const { options, context } = this.hub;
    let from: number | undefined;
    if (!this.everOpened) {
      from = this.spec.catchUpFrom?.ms;
    } else {
      const newest = this.dedupe.newest ?? this.firstOpenMs ?? this.startMs;
      from = newest - options.overlapMs;
    }
    if (from === undefined) return undefined;
    const floor = context.clock.now() - options.maxLookBackMs;
    if (from < floor) {
      this.hub.report(
        new ObservationError(
          'BACKFILL_TRUNCATED',
          `Catching up ${this.spec.label} only from ${new Date(floor).toISOString()}: events before that are older than maxLookBackMs (${options.maxLookBackMs} ms) and are not fetched`,
        ),
      );
      from = floor;
    }
    return from;
  }

  private async catchUp(fromMs: number): Promise<void> {
    const signal = this.controller.signal;
    const windows = readHistoryWindows({
      context: this.hub.context,
      taskIds: this.spec.historyTasks,
      fromMs,
      sliceMs: this.hub.options.backfillSliceMs,
      concurrency: this.hub.options.backfillConcurrency,
      normalize: this.hub.normalize,
      knownOrder: (key) => this.dedupe.orderOf(key),
      onDuplicate: () => {
        this.hub.counters.duplicatesDropped++;
      },
      // Without evidence (basic form, one second, nothing seen yet) newest-first is the better
      // guess: it is how such history endpoints list events, and what the simulator, modelled
      // on deployments, does. Any evidence in a later window overrides it.
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
    for await (const window of windows) {
      let items: DeliveryItem[] = window.items.map((entry) => ({
        ...entry,
        source: 'backfill',
        stream: this,
      }));
      if (window.final) {
        items = mergeCatchUp(items, this.pending);
        this.pending = [];
      }
      for (const item of items) {
        if (!(await this.admit(item))) return;
      }
    }
    // Live frames that came in while the last window was being delivered.
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      for (const item of batch) {
        if (!(await this.admit(item))) return;
      }
    }
    this.phase = 'live';
    if (this.pauseReasons.delete('pending')) this.applyPause();
  }

  /** Dedupes and queues one catch-up item, waiting for room under the `pause` policy. */
  private async admit(item: DeliveryItem): Promise<boolean> {
    if (!this.accept(item)) return true;
    const { queue, options } = this.hub;
    if (options.overflow === 'pause' && queue.length >= options.highWaterMark) {
      await Promise.race([queue.waitForRoom(), this.aborted]);
      if (this.controller.signal.aborted) return false;
    }
    queue.push(item);
    return true;
  }

  private applyPause(): void {
    const socket = this.socket;
    if (!socket?.canPause) return;
    const shouldPause = this.pauseReasons.size > 0;
    if (shouldPause === this.socketPaused) return;
    this.socketPaused = shouldPause;
    if (shouldPause) socket.pause();
    else socket.resume();
  }

  /** Waits for the socket to close, then forgets it and its heartbeat. */
  private async teardown(socket: RealtimeSocket) {
    const closed = await socket.closed;
    this.heartbeat?.stop();
    this.heartbeat = undefined;
    this.socket = undefined;
    this.socketPaused = false;
    this.pauseReasons.delete('pending');
    this.pending = [];
    return closed;
  }

  private setStatus(status: StreamStatus, info: StateChangeInfo): void {
    if (this.controller.signal.aborted) return;
    this.status = status;
    this.hub.statusChanged(this, info);
  }

  /** Backoff pause; false when the stream was stopped meanwhile. */
  private async wait(ms: number): Promise<boolean> {
    try {
      await this.hub.context.clock.sleep(ms, this.controller.signal);
      return !this.controller.signal.aborted;
    } catch {
      return false;
    }
  }

  private authError(status: number | undefined, cause: unknown): AuthError {
    if (AuthError.isInstance(cause)) return cause;
    const retried = this.hub.context.canRefreshToken ? ' even after logging in again' : '';
    return new AuthError(
      `The service refused the realtime connection for ${this.spec.label} with HTTP ${status}${retried}: the token is invalid or expired, or lacks access to this service`,
      { status, cause },
    );
  }

  private upgradeHttpError(status: number, cause: unknown): HttpError {
    // The URL carries the token; HttpError redacts it, and the label says which socket it was.
    return new HttpError({
      status,
      method: 'GET',
      url: this.spec.url('***'),
      reason: `realtime upgrade for ${this.spec.label} refused`,
      cause,
    });
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
