import type { DeploymentForm } from '../context/form-state.js';
import { asError } from '../errors/as-error.js';
import { ObservationError } from '../errors/observation-error.js';
import type { StoredPosition } from '../ports.js';
import type { ConnectionEvent, ConnectionFailure } from './connection.js';
import type { RealtimeContext } from './context.js';
import { DeliveryLedger } from './delivery-ledger.js';
import { DeliveryQueue } from './delivery-queue.js';
import { type EventKey, eventKey } from './event-key.js';
import { HostPort } from './host-port.js';
import { mediaStage } from './media-stage.js';
import { positionScope, storedPosition } from './position.js';
import { PositionSaver } from './position-saver.js';
import { type ResolvedSelection, resolveSelection } from './selection.js';
import { aggregateState } from './state.js';
import { type Item, reduceStream, type Stream, type StreamAction, streamStatus } from './stream.js';
import { StreamIntake } from './stream-intake.js';
import { StreamSet } from './stream-set.js';
import { streamTitle } from './stream-title.js';
import { checkHandlers, chooseForm } from './subscribe-checks.js';
import { type ResolvedOptions, resolveOptions } from './subscribe-options.js';
import type {
  CloseOptions,
  StateChangeInfo,
  SubscribeOptions,
  SubscriptionHandlers,
  SubscriptionState,
  SubscriptionStats,
  TaskSelection,
} from './types.js';
import { UnfinishedRecord } from './unfinished-record.js';

/** Who learns of a run's state changes: the subscription handle that started it. */
export interface RunObserver {
  stateChanged(run: RealtimeSubscription, state: SubscriptionState, info: StateChangeInfo): void;
}

/**
 * One run of a subscription: validates the selection, handlers and options (throwing a
 * ValidationError at once); `start` connects in the background. Events reach the handler once each,
 * in order per task, and the position moves only past events the handler acknowledged. Pausing
 * and retargeting end a run and start the next (see subscription-handle.ts).
 */
export function startRun(
  context: RealtimeContext,
  selection: TaskSelection,
  handlers: SubscriptionHandlers,
  options: SubscribeOptions | undefined,
  observer: RunObserver,
): RealtimeSubscription {
  const tasks = resolveSelection(selection);
  checkHandlers(handlers, options);
  const resolved = resolveOptions(options);
  const form = chooseForm(context);
  return new RealtimeSubscription(context, tasks, handlers, resolved, form, observer);
}

/** Statuses derive from these stream actions only; the others leave every status as it was. */
const statusActions = new Set<StreamAction['type']>(['catching-up', 'live', 'closed']);

/**
 * Composes the parts and is the only one that knows them all: a Connection per socket (which
 * publishes one event union), the intake (live frames, catch-up, read-back) into one DeliveryQueue
 * (which hands events over, media prepared, and reports to the ledger), the ledger (admission,
 * acknowledgements, counters) and the PositionSaver. A stream's state changes only through
 * `dispatch`, which runs the stream reducer and derives the subscription's state; the position
 * flows one way, from acknowledgements through the admission records into the store.
 */
export class RealtimeSubscription {
  private current: SubscriptionState = 'connecting';
  private lastAttempt: number | undefined;
  private readonly controller = new AbortController();
  readonly queue: DeliveryQueue<Item>;
  readonly ledger: DeliveryLedger;
  private readonly intake: StreamIntake;
  private readonly saver: PositionSaver | undefined;
  /** With `position.unfinished`: what is handed over and not acknowledged, kept in the position. */
  private readonly unfinished: UnfinishedRecord | undefined;
  /** Records of the streams as they stood when the subscription closed (the last save). */
  private closingRecords: ReturnType<RealtimeSubscription['streamRecords']> | undefined;
  private readonly set: StreamSet;
  private ending: Promise<void> | undefined;
  private readonly scope: string;
  /** A socket of this subscription opened at least once. */
  private everOpened = false;
  /** A first start the service refused before any socket opened: the position says so. */
  private refusedFirstStart = false;

  constructor(
    readonly context: RealtimeContext,
    tasks: ResolvedSelection,
    private readonly handlers: SubscriptionHandlers,
    readonly options: ResolvedOptions,
    form: DeploymentForm,
    private readonly observer: RunObserver,
  ) {
    this.scope = positionScope(context.wsBaseUrl, context.serviceId, tasks);
    const { signal } = this.controller;
    this.set = new StreamSet(this, tasks, form, signal);
    const store = options.position;
    const report = (error: Error) => this.report(error);
    const unfinished = store && options.unfinished && new UnfinishedRecord(options.unfinished === 'rerun');
    this.unfinished = unfinished;
    const saver =
      store &&
      new PositionSaver({
        store,
        clock: context.clock,
        logger: context.logger,
        saveMs: options.positionSaveMs,
        ifMissing: options.ifMissing,
        snapshot: () => this.snapshot(),
        ...(unfinished && { record: unfinished }),
        report,
        signal,
      });
    this.saver = saver;
    const { onBatch } = handlers;
    this.ledger = new DeliveryLedger(options, options.ack.handlerLabel ?? (onBatch ? 'onBatch' : 'onEvent'), {
      report,
      dispatch: (stream, action) => this.dispatch(stream, action),
      moved: () => this.saver?.moved(),
      pressure: (paused) => {
        for (const stream of this.set.streams.values()) stream.connection.setPaused('queue', paused);
      },
      gaveUp: (given) => {
        try {
          this.handlers.onGiveUp?.(given);
        } catch (handlerError) {
          this.context.logger.warn('onGiveUp handler threw', { error: asError(handlerError).message });
        }
      },
    });
    const port = new HostPort(handlers, {
      // The cooldown keeps events from the handler as the filter does.
      filtered: options.filter !== undefined || options.cooldown !== undefined,
      prepare: options.media && mediaStage(context, options.media, report, signal, options.allowedLatenessMs),
      ...(unfinished &&
        saver && {
          record: { record: unfinished, save: () => saver.handOver(), now: () => context.clock.now() },
        }),
    });
    const { highWaterMark, overflow, maxInFlight } = options;
    const batch = onBatch ? { batch: { ...options.batch, clock: context.clock } } : {};
    const ack = { ...options.ack, clock: context.clock };
    this.queue = new DeliveryQueue<Item>(
      { highWaterMark, overflow, maxInFlight, ack, ...batch },
      port,
      this.ledger,
    );
    this.intake = new StreamIntake(this);
  }

  get state(): SubscriptionState {
    return this.current;
  }

  get stats(): SubscriptionStats {
    const { queue, ledger } = this;
    const stats: SubscriptionStats = {
      ...ledger.counters,
      queued: queue.length,
      peakQueued: queue.peakLength,
      inFlight: queue.inFlight,
      readingBack: 0,
    };
    for (const stream of this.set.streams.values()) if (stream.readingBack) stats.readingBack++;
    if (ledger.lastDeliveredMs !== Number.NEGATIVE_INFINITY)
      stats.lastEventAt = new Date(ledger.lastDeliveredMs);
    return stats;
  }

  get position(): StoredPosition {
    return this.snapshot();
  }

  start(): void {
    if (!this.saver || !this.options.resume) {
      // Not resuming is a first start: it begins live, and its position replaces the stored one.
      if (this.saver) this.set.loaded.firstStart = true;
      this.set.open();
      return;
    }
    // The stored position is read before any socket opens: every stream starts where it stopped.
    this.saver.load(this.scope).then(
      (loaded) => {
        this.set.loaded = loaded;
        this.unfinished?.restore(loaded.unfinished, this.context.clock.now());
        if (loaded.cooldown) this.ledger.cooldown?.restore(loaded.cooldown);
        if (!this.isFinal()) this.set.open();
      },
      (error: unknown) => this.fail(asError(error)),
    );
  }

  close(options?: CloseOptions): Promise<void> {
    if (!this.ending) {
      if (this.current !== 'failed') this.transition('closed', {});
      this.ending = this.release(options?.drainMs ?? 0);
    }
    return this.ending;
  }

  // ---- what the connections publish -------------------------------------------------------

  observe(stream: Stream): (event: ConnectionEvent) => void {
    return (event) => {
      switch (event.type) {
        case 'frame':
          return this.intake.frame(stream, event.data);
        case 'status':
          if (!this.isFinal() && this.set.streams.get(stream.label) === stream) this.derive(event.info);
          return;
        case 'opened':
          this.everOpened = true;
          if (event.reconnect) this.ledger.counters.reconnects++;
          if (this.context.form === 'auto' && stream.label === 'extended')
            this.context.rememberForm('extended');
          return this.intake.opened(stream);
        case 'closed':
          return this.dispatch(stream, { type: 'closed' });
        case 'failed':
          return this.failed(stream, event.failure);
        case 'error':
          return this.report(event.error);
      }
    };
  }

  private failed(stream: Stream, failure: ConnectionFailure): void {
    if (this.isFinal()) return;
    const { context, set } = this;
    const form = set.form;
    if (failure.kind === 'not-found' && stream.label === 'extended' && context.form === 'auto') {
      // The deployment has no extended realtime address: it is the older, basic generation.
      context.logger.debug('extended realtime address not found, using the basic form');
      context.rememberForm('basic');
      set.reopenAsBasic(stream.label);
      return;
    }
    if (failure.kind === 'not-found' && set.followsTaskList) {
      // Following the task list: the task went away between listing and connecting. Let it go;
      // the next listing brings it back if it still exists.
      this.report(failure.error);
      set.remove(stream.label);
      this.derive({});
      return;
    }
    const error =
      failure.kind === 'not-found'
        ? new ObservationError(
            'REALTIME_NOT_FOUND',
            form === 'extended'
              ? `The service has no extended realtime address for ${streamTitle(stream.label)} (HTTP 404): check the service id, or use form 'basic'`
              : `The service refused the realtime address for ${streamTitle(stream.label)} (HTTP 404): the task does not exist or the deployment uses the extended form`,
            { cause: failure.error },
          )
        : failure.error;
    this.fail(error);
  }

  // ---- what the stream set asks ------------------------------------------------------------

  opened(stream: Stream, restored: boolean): void {
    // Where a new stream begins is a position too, saved at once: a restart before its first
    // event resumes from there instead of starting live again and missing what happened while it
    // was down. At once, not when its socket opens: n8n keeps a trigger's static data as it stands
    // when the activation returns, and saves it again only when an execution starts.
    if (!restored) this.saver?.moved();
    if (this.queue.isPressured) stream.connection.setPaused('queue', true);
  }

  listed(): void {
    this.derive({});
  }

  // ---- position ---------------------------------------------------------------------------

  /** The position as it stands: every running stream, and what was stored for the others. */
  private snapshot(): StoredPosition {
    const records = new Map(this.set.loaded.streams);
    for (const [label, record] of this.closingRecords ?? this.streamRecords()) records.set(label, record);
    return storedPosition(
      this.scope,
      this.context.clock.now(),
      records,
      this.refusedFirstStart,
      this.unfinished?.stored(),
      this.ledger.cooldown?.stored(),
    );
  }

  private streamRecords() {
    const { allowedLatenessMs, overlapMs } = this.options;
    const ahead = new Map<Stream, { key: EventKey; timeMs: number }[]>();
    for (const { stream, event } of this.queue.settledAhead()) {
      const finished = ahead.get(stream) ?? [];
      finished.push({ key: eventKey(event), timeMs: event.occurredAt.getTime() });
      ahead.set(stream, finished);
    }
    return new Map(
      [...this.set.streams].map(([label, s]) => [
        label,
        s.admission.record(allowedLatenessMs, overlapMs, ahead.get(s)),
      ]),
    );
  }

  // ---- state ------------------------------------------------------------------------------

  /** Runs the stream reducer, applies what the new stream state asks of its socket, derives ours. */
  dispatch(stream: Stream, action: StreamAction): void {
    reduceStream(stream, action);
    if (action.type === 'held' && stream.pending.length >= this.options.highWaterMark)
      stream.connection.setPaused('pending', true);
    if (action.type === 'live' || action.type === 'closed') stream.connection.setPaused('pending', false);
    if (statusActions.has(action.type)) this.derive({});
  }

  /** Recomputes the subscription's state from its streams. */
  private derive(info: StateChangeInfo): void {
    if (this.isFinal()) return;
    const next = aggregateState([...this.set.streams.values()].map(streamStatus), this.set.listed);
    // Every new attempt is news, also while the first connect keeps failing (a wrong path, a
    // refused login): a host shows why, not only "connecting".
    const attemptChanged =
      (next === 'reconnecting' || next === 'connecting') &&
      info.attempt !== undefined &&
      info.attempt !== this.lastAttempt;
    if (next !== this.current || attemptChanged) this.transition(next, info);
  }

  /** The one place the state changes. */
  private transition(state: SubscriptionState, info: StateChangeInfo): void {
    this.current = state;
    this.lastAttempt = info.attempt;
    this.observer.stateChanged(this, state, info);
  }

  report(error: Error): void {
    try {
      this.handlers.onError?.(error);
    } catch (handlerError) {
      this.context.logger.warn('onError handler threw', { error: asError(handlerError).message });
    }
  }

  fail(error: Error): void {
    if (this.isFinal()) return;
    if (this.set.loaded.firstStart && !this.everOpened) {
      // A first start the service refused (a wrong token or path) was owed nothing: saved with
      // the last save, so that once the user fixes the setting the next start is live.
      this.refusedFirstStart = true;
      this.saver?.moved();
    }
    this.transition('failed', { error });
    this.report(error);
    this.ending = this.release();
  }

  private isFinal(): boolean {
    return this.current === 'closed' || this.current === 'failed';
  }

  /**
   * A graceful close's wait (the sockets are stopped already): nothing more is handed over, and
   * the handler's acknowledgements still count until none is out, none came for a quarter of
   * `drainMs` (what is left was cut off by the host), or `drainMs` passed. Each wait ends on the
   * queue's word that a unit is done, or on a timer for the quiet: nothing polls.
   */
  private async drain(drainMs: number): Promise<void> {
    const { clock } = this.context;
    const { queue } = this;
    queue.hold();
    const endsAt = clock.now() + drainMs;
    while (queue.awaiting > 0) {
      const waitMs = Math.min(drainMs / 4, endsAt - clock.now());
      if (waitMs <= 0) return;
      const timer = new AbortController();
      const quiet = clock.sleep(waitMs, timer.signal).then(
        () => true,
        () => false,
      );
      const timedOut = await Promise.race([queue.nextDone().then(() => false), quiet]);
      timer.abort();
      if (timedOut) return;
    }
  }

  /** Stops every socket, timer and listener; resolves when all are gone and the last save is written. */
  private async release(drainMs = 0): Promise<void> {
    this.controller.abort();
    if (drainMs > 0) await this.drain(drainMs);
    // The last save covers every event the handler acknowledged, also those finished while an
    // earlier one was still out (read before the queue lets go of them); the streams stop right after.
    this.closingRecords = this.streamRecords();
    // Those finished ahead move no position on their own: the last save must still be written.
    if (this.queue.settledAhead().length > 0) this.saver?.moved();
    this.queue.close();
    await Promise.all([this.saver?.flush(), this.set.stop()]);
  }
}
