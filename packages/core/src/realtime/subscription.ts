import type { DeploymentForm } from '../context/form-state.js';
import { ObservationError } from '../errors/observation-error.js';
import { matchesEventFilter } from '../filter/event-filter.js';
import { Admission, type StreamRecord } from './admission.js';
import { readCatchUpWindows, readSecondKeys } from './catch-up.js';
import { asError, Connection, type ConnectionFailure, type ConnectionListener } from './connection.js';
import type { RealtimeContext } from './context.js';
import { DeliveryQueue } from './delivery-queue.js';
import { batchIdentity, type EventKey, eventKey } from './event-key.js';
import { parseFrame } from './frame-parser.js';
import { type HistoryDirection, mergeCatchUp } from './ordered-merge.js';
import { positionScope, type StoredPosition, storedPosition } from './position.js';
import { type LoadedPosition, PositionSaver } from './position-saver.js';
import { basicRealtimeUrl, extendedRealtimeUrl } from './realtime-path.js';
import { type ResolvedSelection, resolveSelection } from './selection.js';
import { aggregateState, type StreamStatus } from './state.js';
import { type Item, newItem, type Stream } from './stream.js';
import { checkHandlers, chooseForm } from './subscribe-checks.js';
import { type ResolvedOptions, resolveOptions } from './subscribe-options.js';
import { followTasks, type TaskListUpdate } from './task-follower.js';
import type {
  StateChangeInfo,
  SubscribeOptions,
  Subscription,
  SubscriptionHandlers,
  SubscriptionState,
  SubscriptionStats,
  TaskSelection,
} from './types.js';

/**
 * Starts a realtime subscription: validates the selection, handlers and options (throwing a
 * ValidationError at once), then connects in the background. Progress is reported through
 * `onStateChange`, problems through `onError`; events reach the handler once each, in order per
 * task, and the position moves only past events the handler acknowledged.
 */
export function createSubscription(
  context: RealtimeContext,
  selection: TaskSelection,
  handlers: SubscriptionHandlers,
  options?: SubscribeOptions,
): Subscription {
  const tasks = resolveSelection(selection);
  checkHandlers(handlers, options);
  const resolved = resolveOptions(options);
  const form = chooseForm(context);
  const subscription = new RealtimeSubscription(context, tasks, handlers, resolved, form);
  subscription.start();
  return subscription;
}

type Counters = Omit<SubscriptionStats, 'queued' | 'peakQueued' | 'inFlight' | 'readingBack' | 'lastEventAt'>;

/**
 * The subscription composes the parts and is the only one that knows them all: a Connection per
 * socket (which publishes status and frames and waits for nothing), an Admission per socket and
 * one DeliveryQueue (plain records), the catch-up reader and the PositionSaver. Every state change
 * goes through `transition`; the position flows one way, from acknowledgements through the
 * admission records into the store.
 */
class RealtimeSubscription implements Subscription {
  private current: SubscriptionState = 'connecting';
  private lastAttempt: number | undefined;
  private readonly counters: Counters = {
    received: 0,
    delivered: 0,
    filtered: 0,
    duplicatesDropped: 0,
    backfilled: 0,
    malformed: 0,
    reconnects: 0,
    dropped: 0,
  };
  private readonly streams = new Map<string, Stream>();
  private readonly stopping = new Set<Promise<void>>();
  private readonly controller = new AbortController();
  private readonly queue: DeliveryQueue<Item>;
  private readonly saver: PositionSaver | undefined;
  private loaded: LoadedPosition = { streams: new Map(), fallback: undefined, firstStart: false };
  /** Records of the streams as they stood when the subscription closed (the last save). */
  private closingRecords: Map<string, StreamRecord> | undefined;
  /** The history order learned from earlier catch-ups, for windows that carry no evidence. */
  private historyOrder: HistoryDirection | undefined;
  private follower: Promise<void> | undefined;
  private listed = false;
  /** Occurrence time of the newest event acknowledged (`stats.lastEventAt`). */
  private lastDeliveredMs = Number.NEGATIVE_INFINITY;
  private ending: Promise<void> | undefined;
  private readonly onAbortSignal = (): void => void this.close();
  private readonly scope: string;
  private readonly startedMs: number;

  constructor(
    private readonly context: RealtimeContext,
    private readonly tasks: ResolvedSelection,
    private readonly handlers: SubscriptionHandlers,
    private readonly options: ResolvedOptions,
    private form: DeploymentForm,
  ) {
    this.startedMs = context.clock.now();
    this.scope = positionScope(context.wsBaseUrl, context.serviceId, tasks);
    const store = options.position;
    this.saver =
      store &&
      new PositionSaver({
        store,
        clock: context.clock,
        logger: context.logger,
        saveMs: options.positionSaveMs,
        snapshot: () => this.snapshot(),
        report: (error) => this.report(error),
        signal: this.controller.signal,
      });
    const { onEvent, onBatch } = handlers;
    this.queue = new DeliveryQueue<Item>({
      highWaterMark: options.highWaterMark,
      overflow: options.overflow,
      maxInFlight: options.maxInFlight,
      deliver: onEvent ? (item) => onEvent.call(handlers, item.event, item.meta) : () => undefined,
      ...(onBatch
        ? {
            batch: { ...options.batch, clock: context.clock },
            deliverBatch: (items: Item[]) => {
              const events = items.map((item) => item.event);
              const metas = items.map((item) => item.meta);
              return onBatch.call(handlers, { events, metas, key: batchIdentity(events) });
            },
          }
        : {}),
      ...(options.filter ? { wanted: (item: Item) => item.wanted } : {}),
      onDelivered: (item) => this.acknowledged(item),
      onHandlerError: (error) =>
        this.report(
          new ObservationError(
            'HANDLER_ERROR',
            `${onBatch ? 'onBatch' : 'onEvent'} failed: ${asError(error).message}`,
            {
              cause: error,
            },
          ),
        ),
      onDropped: () => {
        this.counters.dropped++;
      },
      // Dropped by the caller's own policy: once the events before it are done, the position
      // may pass it.
      onSkipped: (item) => this.passed(item),
      skipKey: (item) => item.stream,
      onPressure: (paused) => {
        for (const stream of this.streams.values()) stream.connection.setPaused('queue', paused);
      },
    });
  }

  get state(): SubscriptionState {
    return this.current;
  }

  get stats(): SubscriptionStats {
    const stats: SubscriptionStats = {
      ...this.counters,
      queued: this.queue.length,
      peakQueued: this.queue.peakLength,
      inFlight: this.queue.inFlight,
      readingBack: 0,
    };
    for (const stream of this.streams.values()) if (stream.readingBack) stats.readingBack++;
    if (this.lastDeliveredMs !== Number.NEGATIVE_INFINITY) stats.lastEventAt = new Date(this.lastDeliveredMs);
    return stats;
  }

  get position(): StoredPosition {
    return this.snapshot();
  }

  start(): void {
    const signal = this.options.signal;
    if (signal?.aborted) {
      void this.close();
      return;
    }
    signal?.addEventListener('abort', this.onAbortSignal, { once: true });
    if (!this.saver) {
      this.startForm();
      return;
    }
    // The stored position is read before any socket opens: every stream starts where it stopped.
    this.saver.load(this.scope).then(
      (loaded) => {
        this.loaded = loaded;
        if (!this.isFinal()) this.startForm();
      },
      (error: unknown) => this.fail(asError(error)),
    );
  }

  close(): Promise<void> {
    if (!this.ending) {
      if (this.current !== 'failed') this.transition('closed', {});
      this.ending = this.release();
    }
    return this.ending;
  }

  // ---- what the connections publish -------------------------------------------------------

  private listenerFor(stream: Stream): ConnectionListener {
    return {
      status: (_status, info) => {
        if (!this.isFinal() && this.streams.get(stream.label) === stream) this.dispatch(info);
      },
      opened: (reconnect) => this.opened(stream, reconnect),
      frame: (data) => this.frame(stream, data),
      closed: () => this.closed(stream),
      failed: (failure) => this.failed(stream, failure),
      report: (error) => this.report(error),
    };
  }

  private frame(stream: Stream, data: unknown): void {
    this.counters.received++;
    const parsed = parseFrame(data);
    if (!parsed.ok) {
      this.counters.malformed++;
      this.report(parsed.error);
      return;
    }
    const item = newItem(parsed.event, parsed.raw, 'live', stream);
    if (stream.phase !== 'live') {
      stream.pending.push(item);
      if (stream.pending.length >= this.options.highWaterMark) stream.connection.setPaused('pending', true);
      return;
    }
    if (this.admit(item)) this.queue.push(item);
  }

  /**
   * A socket is open. A fresh stream goes live at once; one that resumes (a stored position, a
   * look-back, a new task, any reconnect) first catches up from history, while live frames wait.
   * A stream that had events reads what it missed first and goes live; the allowed lateness of
   * history before that, where only events published late can be new, is read after (`readBack`).
   * Only after an outage shorter than the lateness: the keys the read-back may meet again are kept
   * until it ends, so an outage of any length would keep that many more. After a longer one, the
   * read-back is a small part of the catch-up, which reads everything in one pass as before.
   */
  private opened(stream: Stream, reconnect: boolean): void {
    if (reconnect) this.counters.reconnects++;
    if (this.context.form === 'auto' && stream.label === 'extended') this.context.rememberForm('extended');
    if (!stream.started && stream.startFromMs === undefined) {
      this.goLive(stream);
      return;
    }
    const { options, context } = this;
    const range = stream.admission.catchUpRange(options.allowedLatenessMs, options.overlapMs);
    const oldest = context.clock.now() - options.maxLookBackMs;
    // A second of grace: a look-back equal to the limit was computed a moment earlier.
    if (range.fromMs < oldest - 1_000) {
      this.report(
        new ObservationError(
          'BACKFILL_TRUNCATED',
          `Catching up ${stream.label} only from ${new Date(oldest).toISOString()}: events before that are older than maxLookBackMs (${options.maxLookBackMs} ms) and are not fetched`,
        ),
      );
    }
    const from = Math.max(range.fromMs, oldest);
    const missed = range.missedFromMs;
    const split =
      missed !== undefined && missed > from && context.clock.now() - missed <= options.allowedLatenessMs;
    const missedFrom = split ? missed : undefined;
    const controller = new AbortController();
    stream.catchUp = controller;
    stream.phase = 'catching-up';
    this.dispatch({});
    if (missedFrom !== undefined) stream.admission.owe(from);
    void this.resume(stream, from, missedFrom, controller.signal);
  }

  private closed(stream: Stream): void {
    stream.catchUp?.abort();
    stream.catchUp = undefined;
    stream.phase = 'waiting';
    stream.pending = [];
    stream.connection.setPaused('pending', false);
  }

  private failed(stream: Stream, failure: ConnectionFailure): void {
    if (this.isFinal()) return;
    if (failure.kind === 'not-found' && stream.label === 'extended' && this.context.form === 'auto') {
      // The deployment has no extended realtime address: it is the older, basic generation.
      this.context.logger.debug('extended realtime address not found, using the basic form');
      this.context.rememberForm('basic');
      this.form = 'basic';
      this.removeStream(stream.label);
      this.listed = false;
      this.startForm();
      return;
    }
    if (failure.kind === 'not-found' && this.form === 'basic' && this.tasks === 'all') {
      // Following the task list: the task went away between listing and connecting. Let it go;
      // the next listing brings it back if it still exists.
      this.report(failure.error);
      this.removeStream(stream.label);
      this.dispatch({});
      return;
    }
    const error =
      failure.kind === 'not-found'
        ? new ObservationError(
            'REALTIME_NOT_FOUND',
            this.form === 'extended'
              ? `The service has no extended realtime address for ${stream.label} (HTTP 404): check the service id, or use form 'basic'`
              : `The service refused the realtime address for ${stream.label} (HTTP 404): the task does not exist or the deployment uses the extended form`,
            { cause: failure.error },
          )
        : failure.error;
    this.fail(error);
  }

  // ---- catch-up ---------------------------------------------------------------------------

  private async resume(
    stream: Stream,
    from: number,
    missedFrom: number | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const live = await this.catchUp(stream, missedFrom ?? from, signal);
    if (live) {
      if (missedFrom === undefined) stream.admission.readBack(undefined);
      else await this.readBack(stream, from, missedFrom, signal);
    }
    if (stream.catchUp?.signal === signal) stream.catchUp = undefined;
  }

  /** Reads history from `fromMs` on, delivers it in time order, then goes live: true once live. */
  private async catchUp(stream: Stream, fromMs: number, signal: AbortSignal): Promise<boolean> {
    try {
      for await (const window of this.readHistory(stream, fromMs, undefined, signal)) {
        let items = window.items.map((entry) => newItem(entry.event, entry.raw, 'backfill', stream));
        if (window.final) {
          items = mergeCatchUp(items, stream.pending);
          stream.pending = [];
        }
        for (const item of items) if (!(await this.queueWithRoom(item, signal))) return false;
      }
      // Live frames that came in while the last window was being delivered.
      while (stream.pending.length > 0) {
        const held = stream.pending;
        stream.pending = [];
        for (const item of held) if (!(await this.queueWithRoom(item, signal))) return false;
      }
      if (signal.aborted) return false;
      this.goLive(stream);
      return true;
    } catch (error) {
      this.backfillFailed(stream, error, signal);
      return false;
    }
  }

  /**
   * The allowed lateness of history before what a reconnect missed, read while the stream is
   * live: only events published late can be new there, and they are delivered as they are found,
   * after newer ones (as they would have been live). Until it is read and delivered the admission
   * owes it, so a save or a later catch-up never starts after it.
   */
  private async readBack(stream: Stream, fromMs: number, toMs: number, signal: AbortSignal): Promise<void> {
    stream.readingBack = true;
    try {
      for await (const window of this.readHistory(stream, fromMs, toMs, signal)) {
        for (const entry of window.items) {
          // Before the horizon the keys were forgotten (more events than the dedupe memory holds,
          // reported once as DEDUPE_CAPACITY): such an event may have been delivered already.
          if (entry.event.occurredAt.getTime() < stream.admission.horizon) continue;
          if (!(await this.queueWithRoom(newItem(entry.event, entry.raw, 'backfill', stream), signal)))
            return;
        }
        if (signal.aborted) return;
        stream.admission.readBack(window.final ? undefined : window.endMs);
      }
    } catch (error) {
      this.backfillFailed(stream, error, signal);
    } finally {
      stream.readingBack = false;
    }
  }

  private backfillFailed(stream: Stream, error: unknown, signal: AbortSignal): void {
    if (signal.aborted) return;
    const failure = new ObservationError(
      'BACKFILL_FAILED',
      `Catching up ${stream.label} from history failed, reconnecting to try again: ${asError(error).message}`,
      { cause: error },
    );
    this.report(failure);
    stream.connection.drop(failure);
  }

  private readHistory(stream: Stream, fromMs: number, toMs: number | undefined, signal: AbortSignal) {
    return readCatchUpWindows({
      context: this.context,
      taskIds: stream.historyTasks,
      fromMs,
      ...(toMs === undefined ? {} : { toMs }),
      concurrency: this.options.backfillConcurrency,
      knownOrder: (key) => stream.admission.orderOf(key),
      onDuplicate: () => {
        this.counters.duplicatesDropped++;
      },
      // Without evidence (basic form, one second, nothing seen yet) newest-first is the better
      // guess: it is how such history endpoints list events. Any evidence overrides it.
      fallbackDirection: () => this.historyOrder ?? 'desc',
      onDirection: (direction) => {
        this.historyOrder = direction;
      },
      onMalformed: (error) => {
        this.counters.malformed++;
        this.report(error);
      },
      signal,
    });
  }

  /**
   * Queues one catch-up item, waiting for room under the `pause` policy first. Admission comes
   * only after the wait, together with the push: an item admitted and then abandoned (its socket
   * dropped during the wait) would be taken for a duplicate by the next catch-up, and lost.
   */
  private async queueWithRoom(item: Item, signal: AbortSignal): Promise<boolean> {
    const { queue, options } = this;
    if (options.overflow === 'pause' && queue.length >= options.highWaterMark) {
      await Promise.race([queue.waitForRoom(), aborted(signal)]);
      if (signal.aborted) return false;
    }
    if (this.admit(item)) queue.push(item);
    return true;
  }

  /** Frames that waited while the socket opened (or during the catch-up) are live events like any other. */
  private goLive(stream: Stream): void {
    stream.phase = 'live';
    stream.started = true;
    const early = stream.pending;
    stream.pending = [];
    for (const item of early) if (this.admit(item)) this.queue.push(item);
    stream.connection.setPaused('pending', false);
    this.dispatch({});
  }

  // ---- admission and acknowledgement ------------------------------------------------------

  /** Admission by identity: true when the item is new (and now has its order). */
  private admit(item: Item): boolean {
    const { stream, event } = item;
    const order = stream.admission.admit(eventKey(event), event.occurredAt.getTime());
    if (order === undefined) {
      this.counters.duplicatesDropped++;
      return false;
    }
    item.order = order;
    const filter = this.options.filter;
    if (filter !== undefined) item.wanted = matchesEventFilter(event, filter);
    if (stream.admission.capacityReached && !stream.capacityReported) {
      stream.capacityReported = true;
      this.report(
        new ObservationError(
          'DEDUPE_CAPACITY',
          `More than ${this.options.dedupeCapacity} events of ${stream.label} fell within the allowed lateness: catch-ups now start later than the lateness asks, so an event published that late may be missed after a reconnect`,
        ),
      );
    }
    return true;
  }

  /** The host acknowledged the item (or the filter kept it from the host), every earlier one too. */
  private acknowledged(item: Item): void {
    const { event } = item;
    this.counters.delivered++;
    if (item.meta.source === 'backfill') this.counters.backfilled++;
    if (!item.wanted) this.counters.filtered++;
    const time = event.occurredAt.getTime();
    item.stream.admission.delivered(item.order, time);
    if (time >= this.lastDeliveredMs) this.lastDeliveredMs = time;
    this.saver?.moved();
  }

  private passed(item: Item): void {
    item.stream.admission.delivered(item.order, item.event.occurredAt.getTime());
    this.saver?.moved();
  }

  /** The position as it stands: every running stream, and what was stored for the others. */
  private snapshot(): StoredPosition {
    const records = new Map<string, StreamRecord>(this.loaded.streams);
    for (const [label, record] of this.closingRecords ?? this.streamRecords()) records.set(label, record);
    return storedPosition(this.scope, this.context.clock.now(), records);
  }

  private streamRecords(): Map<string, StreamRecord> {
    const { allowedLatenessMs, overlapMs } = this.options;
    const records = new Map<string, StreamRecord>();
    for (const [label, stream] of this.streams)
      records.set(label, stream.admission.record(allowedLatenessMs, overlapMs));
    return records;
  }

  // ---- streams ----------------------------------------------------------------------------

  private startForm(): void {
    if (this.form === 'extended') {
      const serviceId = this.context.serviceId as string;
      const tasks = this.tasks;
      this.addStream(
        'extended',
        (token) => extendedRealtimeUrl(this.context.wsBaseUrl, serviceId, tasks, token),
        tasks === 'all' ? 'all' : [...tasks],
      );
      this.listed = true;
      return;
    }
    if (this.tasks !== 'all') {
      for (const id of this.tasks) this.addTaskStream(id);
      this.listed = true;
      return;
    }
    this.follower = followTasks({
      context: this.context,
      options: this.options,
      signal: this.controller.signal,
      onUpdate: (update) => this.applyTaskList(update),
      onError: (error) => this.report(error),
      onFatal: (error) => this.fail(error),
    });
  }

  private applyTaskList(update: TaskListUpdate): void {
    if (this.isFinal()) return;
    const wanted = new Set(update.ids.map((id) => taskLabel(id)));
    for (const label of [...this.streams.keys()]) {
      if (!wanted.has(label)) {
        this.removeStream(label);
        this.loaded.streams.delete(label);
      }
    }
    for (const id of update.ids) {
      if (this.streams.has(taskLabel(id))) continue;
      if (update.first) {
        this.addTaskStream(id);
      } else {
        // A task that appeared since the last listing may have produced events already.
        const from = (update.previousListingMs ?? this.context.clock.now()) - this.options.overlapMs;
        this.addTaskStream(id, from);
      }
    }
    this.listed = true;
    this.dispatch({});
  }

  private addTaskStream(id: number, newTaskFromMs?: number): void {
    this.addStream(
      taskLabel(id),
      (token) => basicRealtimeUrl(this.context.wsBaseUrl, id, token),
      [id],
      newTaskFromMs,
    );
  }

  /**
   * Opens the stream `label` where it stopped (its stored position), or else where the options
   * say: `lookBackMs` before the start, a new task's first listing, or (a fresh start) live.
   *
   * A fresh start covers what happens from the second it started in: events that happened before
   * it are delivered when they arrive live, and a catch-up after a drop never reads before that
   * second. The wire time has second resolution, so the events of that second the service had
   * already published are read first (one small read, see learnStartSecond), not the allowed
   * lateness of history.
   */
  private addStream(
    label: string,
    url: (token: string) => string,
    historyTasks: number[] | 'all',
    newTaskFromMs?: number,
  ): void {
    const { options, startedMs } = this;
    const restored = this.loaded.streams.get(label) ?? this.loaded.fallback;
    this.loaded.streams.delete(label);
    const lookBack = this.loaded.firstStart ? 0 : options.lookBackMs;
    const startFromMs =
      restored?.fromMs ?? newTaskFromMs ?? (lookBack > 0 ? startedMs - lookBack : undefined);
    const floorMs = startFromMs ?? Math.floor(startedMs / 1000) * 1000;
    const admission = new Admission(
      options.allowedLatenessMs + options.overlapMs + 1_000,
      options.dedupeCapacity,
      floorMs,
    );
    if (restored) admission.restore(restored);
    const stream = {
      label,
      historyTasks,
      admission,
      startFromMs,
      phase: 'waiting',
      started: false,
      pending: [],
      catchUp: undefined,
      readingBack: false,
      capacityReported: false,
    } as Omit<Stream, 'connection'> as Stream;
    stream.connection = new Connection(this.context, options, label, url, this.listenerFor(stream));
    this.streams.set(label, stream);
    // Where a new stream begins is a position too: a restart before its first event resumes from
    // there instead of starting live again and missing what happened while it was down.
    if (!restored) this.saver?.moved();
    if (this.queue.isPressured) stream.connection.setPaused('queue', true);
    if (startFromMs !== undefined) stream.connection.start();
    else void this.learnStartSecond(stream, floorMs).then(() => stream.connection.start());
  }

  /**
   * A fresh start's one read of history, before its socket opens: the events of the second it
   * started in that the service had published already are the past, known without being
   * delivered, so a later catch-up (which reads from that whole second) does not deliver them.
   * Reading before the socket exists is what makes it safe: nothing published after the socket
   * opened can be mistaken for the past. If it fails, the start goes on; a catch-up may then
   * deliver events of that second published before the start (a repeat of at most one second,
   * never a loss), and the failure is logged.
   */
  private async learnStartSecond(stream: Stream, secondMs: number): Promise<void> {
    const signal = this.controller.signal;
    const keys: EventKey[] = [];
    try {
      for await (const key of readSecondKeys(this.context, stream.historyTasks, secondMs, signal))
        keys.push(key);
    } catch (error) {
      if (signal.aborted) return;
      this.context.logger.warn('could not read the events of the second a fresh start began in', {
        stream: stream.label,
        error: asError(error).message,
      });
    }
    // What was read before a failure is known all the same.
    stream.admission.ignoreAll(keys, secondMs);
  }

  private removeStream(label: string): void {
    const stream = this.streams.get(label);
    if (!stream) return;
    this.streams.delete(label);
    stream.catchUp?.abort();
    const stopped = stream.connection.stop().finally(() => this.stopping.delete(stopped));
    this.stopping.add(stopped);
  }

  // ---- state ------------------------------------------------------------------------------

  /** Recomputes the subscription's state from its streams. */
  private dispatch(info: StateChangeInfo): void {
    if (this.isFinal()) return;
    const statuses: StreamStatus[] = [];
    for (const stream of this.streams.values())
      statuses.push(stream.phase === 'catching-up' ? 'backfilling' : stream.connection.status);
    const next = aggregateState(statuses, this.listed);
    const attemptChanged =
      next === 'reconnecting' && info.attempt !== undefined && info.attempt !== this.lastAttempt;
    if (next !== this.current || attemptChanged) this.transition(next, info);
  }

  /** The one place the state changes. */
  private transition(state: SubscriptionState, info: StateChangeInfo): void {
    this.current = state;
    this.lastAttempt = info.attempt;
    try {
      this.handlers.onStateChange?.(state, info);
    } catch (error) {
      this.context.logger.warn('onStateChange handler threw', { error: asError(error).message });
    }
  }

  report(error: Error): void {
    try {
      this.handlers.onError?.(error);
    } catch (handlerError) {
      this.context.logger.warn('onError handler threw', { error: asError(handlerError).message });
    }
  }

  private fail(error: Error): void {
    if (this.isFinal()) return;
    this.transition('failed', { error });
    this.report(error);
    this.ending = this.release();
  }

  private isFinal(): boolean {
    return this.current === 'closed' || this.current === 'failed';
  }

  /** Stops every socket, timer and listener; resolves when all are gone and the last save is written. */
  private async release(): Promise<void> {
    this.options.signal?.removeEventListener('abort', this.onAbortSignal);
    this.controller.abort();
    this.queue.close();
    // The last save covers every event the handler acknowledged; the streams stop right after.
    this.closingRecords = this.streamRecords();
    const saved = this.saver?.flush();
    for (const label of [...this.streams.keys()]) this.removeStream(label);
    await Promise.all([...this.stopping, this.follower, saved]);
  }
}

function taskLabel(id: number): string {
  return `task ${id}`;
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
