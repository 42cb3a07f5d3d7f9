import { ObservationError } from '../errors/observation-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from '../validation/describe-value.js';
import type { DeploymentForm, RealtimeContext } from './context.js';
import { DeliveryQueue } from './delivery-queue.js';
import { normalizeEvent, type RealtimeEvent } from './event-model.js';
import {
  type DeliveryItem,
  EventStream,
  type StreamFailure,
  type StreamHub,
  type StreamSpec,
} from './event-stream.js';
import type { NormalizeFn } from './frame-parser.js';
import type { StoredPosition, StreamPosition } from './position.js';
import { PositionKeeper, type PositionSource, positionScope } from './position-keeper.js';
import { basicRealtimeUrl, extendedRealtimeUrl } from './realtime-path.js';
import { type ResolvedSelection, resolveSelection } from './selection.js';
import { aggregateState } from './state.js';
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
 * `onStateChange`, problems through `onError`; events reach `onEvent` once each, in order per task.
 */
export function createSubscription(
  context: RealtimeContext,
  selection: TaskSelection,
  handlers: SubscriptionHandlers,
  options?: SubscribeOptions,
): Subscription {
  const tasks = resolveSelection(selection);
  checkHandlers(handlers);
  const resolved = resolveOptions(options);
  const form = chooseForm(context);
  const subscription = new RealtimeSubscription(context, tasks, handlers, resolved, form);
  subscription.start();
  return subscription;
}

function checkHandlers(handlers: unknown): asserts handlers is SubscriptionHandlers {
  const allowed = 'an object { onEvent(event, meta), onStateChange?(state, info), onError?(error) }';
  if (handlers === null || typeof handlers !== 'object') {
    throw new ValidationError('handlers', describeValue(handlers), allowed);
  }
  const record = handlers as Record<string, unknown>;
  if (typeof record.onEvent !== 'function') {
    throw new ValidationError('handlers.onEvent', describeValue(record.onEvent), 'a function');
  }
  for (const name of ['onStateChange', 'onError']) {
    if (record[name] !== undefined && typeof record[name] !== 'function') {
      throw new ValidationError(`handlers.${name}`, describeValue(record[name]), 'a function or nothing');
    }
  }
}

/** Extended needs a service id; `auto` tries extended when there is one and remembers what worked. */
function chooseForm(context: RealtimeContext): DeploymentForm {
  const known = context.knownForm();
  const form = context.form === 'auto' ? (known ?? (context.serviceId ? 'extended' : 'basic')) : context.form;
  if (form === 'extended' && !context.serviceId) {
    throw new ValidationError(
      'serviceId',
      'nothing',
      "the service id of the workspace (the extended realtime address needs it), or form 'basic'",
    );
  }
  return form;
}

type MutableStats = Omit<SubscriptionStats, 'queued' | 'peakQueued'>;

class RealtimeSubscription implements Subscription, StreamHub, PositionSource {
  readonly normalize: NormalizeFn = normalizeEvent;
  historyOrder: StreamHub['historyOrder'];
  readonly queue: DeliveryQueue<DeliveryItem>;
  readonly counters: MutableStats = {
    received: 0,
    delivered: 0,
    duplicatesDropped: 0,
    backfilled: 0,
    malformed: 0,
    reconnects: 0,
    dropped: 0,
  };

  private currentState: SubscriptionState = 'connecting';
  private lastAttempt: number | undefined;
  private readonly streams = new Map<string, EventStream>();
  private readonly stopping = new Set<Promise<void>>();
  private readonly controller = new AbortController();
  private follower: Promise<void> | undefined;
  private listed = false;
  private lastDelivered: RealtimeEvent | undefined;
  private ending: Promise<void> | undefined;
  private readonly onAbortSignal = (): void => void this.close();
  private readonly keeper: PositionKeeper;
  private readonly startedMs: number;

  constructor(
    readonly context: RealtimeContext,
    private readonly tasks: ResolvedSelection,
    private readonly handlers: SubscriptionHandlers,
    readonly options: ResolvedOptions,
    private form: DeploymentForm,
  ) {
    this.startedMs = context.clock.now();
    this.keeper = new PositionKeeper(
      options.position,
      positionScope(context.wsBaseUrl, context.serviceId, tasks === 'all' ? 'all' : [...tasks]),
      context,
      options.positionSaveMs,
      this,
      (error) => this.report(error),
      this.controller.signal,
    );
    this.queue = new DeliveryQueue<DeliveryItem>({
      highWaterMark: options.highWaterMark,
      overflow: options.overflow,
      maxInFlight: options.maxInFlight,
      deliver: (item) => handlers.onEvent(item.event, { raw: item.raw, source: item.source }),
      onDelivered: (item) => this.delivered(item),
      onHandlerError: (error) =>
        this.report(
          new ObservationError('HANDLER_ERROR', `onEvent failed: ${describeError(error)}`, { cause: error }),
        ),
      onDropped: () => {
        this.counters.dropped++;
      },
      onSkipped: (item) => {
        // Dropped by the caller's own policy: once the events before it are done, the position
        // may pass it.
        item.stream.delivered(item);
        this.keeper.moved();
      },
      skipKey: (item) => item.stream,
      onPressure: (paused) => {
        for (const stream of this.streams.values()) stream.setQueuePressure(paused);
      },
    });
  }

  get state(): SubscriptionState {
    return this.currentState;
  }

  get stats(): SubscriptionStats {
    const stats: SubscriptionStats = {
      ...this.counters,
      queued: this.queue.length,
      peakQueued: this.queue.peakLength,
    };
    if (this.lastDelivered) stats.lastEventAt = this.lastDelivered.occurredAt;
    return stats;
  }

  get position(): StoredPosition {
    return this.keeper.current();
  }

  streamPositions(): Map<string, StreamPosition> {
    const positions = new Map<string, StreamPosition>();
    for (const [label, stream] of this.streams) positions.set(label, stream.position());
    return positions;
  }

  start(): void {
    const signal = this.options.signal;
    if (signal?.aborted) {
      void this.close();
      return;
    }
    signal?.addEventListener('abort', this.onAbortSignal, { once: true });
    // The stored position is read before any socket opens: every stream starts where it stopped.
    this.keeper.load().then(
      () => {
        if (!this.isFinal()) this.startForm();
      },
      (error: unknown) => this.fail(error instanceof Error ? error : new Error(String(error))),
    );
  }

  close(): Promise<void> {
    if (!this.ending) {
      if (this.currentState !== 'failed') this.setState('closed', {});
      this.ending = this.release();
    }
    return this.ending;
  }

  // ---- StreamHub --------------------------------------------------------------------------

  report(error: Error): void {
    try {
      this.handlers.onError?.(error);
    } catch (handlerError) {
      this.context.logger.warn('onError handler threw', { error: describeError(handlerError) });
    }
  }

  statusChanged(stream: EventStream, info: StateChangeInfo): void {
    if (this.isFinal() || !this.streams.has(stream.spec.label)) return;
    this.refreshState(info);
  }

  opened(stream: EventStream): void {
    if (this.context.form === 'auto' && stream.spec.label === 'extended')
      this.context.rememberForm('extended');
  }

  failed(stream: EventStream, failure: StreamFailure): void {
    if (this.isFinal()) return;
    if (failure.kind === 'not-found' && stream.label === 'extended' && this.context.form === 'auto') {
      // The deployment has no extended realtime address: it is the older, basic generation.
      this.context.logger.debug('extended realtime address not found, using the basic form');
      this.context.rememberForm('basic');
      this.form = 'basic';
      this.removeStream(stream.spec.label);
      this.listed = false;
      this.startForm();
      return;
    }
    if (failure.kind === 'not-found' && this.form === 'basic' && this.tasks === 'all') {
      // Following the task list: the task went away between listing and connecting. Let it go;
      // the next listing brings it back if it still exists.
      this.report(failure.error);
      this.removeStream(stream.spec.label);
      this.refreshState({});
      return;
    }
    const error =
      failure.kind === 'not-found'
        ? new ObservationError(
            'REALTIME_NOT_FOUND',
            this.form === 'extended'
              ? `The service has no extended realtime address for ${stream.spec.label} (HTTP 404): check the service id, or use form 'basic'`
              : `The service refused the realtime address for ${stream.spec.label} (HTTP 404): the task does not exist or the deployment uses the extended form`,
            { cause: failure.error },
          )
        : failure.error;
    this.fail(error);
  }

  // ---- internals -------------------------------------------------------------------------

  private startForm(): void {
    if (this.form === 'extended') {
      const serviceId = this.context.serviceId as string;
      const tasks = this.tasks;
      this.addStream('extended', {
        url: (token) => extendedRealtimeUrl(this.context.wsBaseUrl, serviceId, tasks, token),
        historyTasks: tasks === 'all' ? 'all' : [...tasks],
      });
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
        this.keeper.forget(label);
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
    this.refreshState({});
  }

  private addTaskStream(id: number, newTaskFromMs?: number): void {
    this.addStream(
      taskLabel(id),
      {
        url: (token) => basicRealtimeUrl(this.context.wsBaseUrl, id, token),
        historyTasks: [id],
      },
      newTaskFromMs,
    );
  }

  /**
   * Opens the stream `label` where it stopped (its stored position), or else where the options
   * say: `lookBackMs` before the start, or (a task that appeared later) its first listing.
   */
  private addStream(
    label: string,
    address: Pick<StreamSpec, 'url' | 'historyTasks'>,
    newTaskFromMs?: number,
  ): void {
    const restored = this.keeper.take(label);
    const lookBack = this.keeper.firstStart ? 0 : this.options.lookBackMs;
    let spec: StreamSpec;
    if (restored) {
      spec = { label, ...address, floorMs: restored.fromMs, startFromMs: restored.fromMs, restored };
    } else if (newTaskFromMs !== undefined) {
      spec = { label, ...address, floorMs: newTaskFromMs, startFromMs: newTaskFromMs };
    } else {
      // A fresh start is live, but an event that happened just before it may be published after
      // it (camera latency, a late answer): reconnect catch-ups may read back the lateness before
      // the start, so such an event is not lost to a drop. The look-back only sets the first one.
      spec = {
        label,
        ...address,
        floorMs: this.startedMs - Math.max(lookBack, this.options.allowedLatenessMs),
        ...(lookBack > 0 ? { startFromMs: this.startedMs - lookBack } : {}),
      };
    }
    const stream = new EventStream(this, spec);
    this.streams.set(label, stream);
    if (this.queue.isPressured) stream.setQueuePressure(true);
    stream.start();
  }

  private removeStream(label: string): void {
    const stream = this.streams.get(label);
    if (!stream) return;
    this.streams.delete(label);
    const stopped = stream.stop().finally(() => this.stopping.delete(stopped));
    this.stopping.add(stopped);
  }

  private delivered(item: DeliveryItem): void {
    const { event } = item;
    this.counters.delivered++;
    if (item.source === 'backfill') this.counters.backfilled++;
    item.stream.delivered(item);
    const last = this.lastDelivered;
    if (last === undefined || event.occurredAt.getTime() >= last.occurredAt.getTime())
      this.lastDelivered = event;
    this.keeper.moved();
  }

  private refreshState(info: StateChangeInfo): void {
    if (this.isFinal()) return;
    const statuses = [...this.streams.values()].map((stream) => stream.status);
    const next = aggregateState(statuses, this.listed);
    const attemptChanged =
      next === 'reconnecting' && info.attempt !== undefined && info.attempt !== this.lastAttempt;
    if (next !== this.currentState || attemptChanged) this.setState(next, info);
  }

  private setState(state: SubscriptionState, info: StateChangeInfo): void {
    this.currentState = state;
    this.lastAttempt = info.attempt;
    try {
      this.handlers.onStateChange?.(state, info);
    } catch (error) {
      this.context.logger.warn('onStateChange handler threw', { error: describeError(error) });
    }
  }

  private fail(error: Error): void {
    if (this.isFinal()) return;
    this.setState('failed', { error });
    this.report(error);
    this.ending = this.release();
  }

  private isFinal(): boolean {
    return this.currentState === 'closed' || this.currentState === 'failed';
  }

  /** Stops every socket, timer and listener; resolves when all are gone. */
  private async release(): Promise<void> {
    this.options.signal?.removeEventListener('abort', this.onAbortSignal);
    this.controller.abort();
    this.queue.close();
    // The last save covers every event the handler finished; the streams stop right after.
    this.keeper.flush();
    for (const label of [...this.streams.keys()]) this.removeStream(label);
    await Promise.all([...this.stopping, this.follower]);
  }
}

function taskLabel(id: number): string {
  return `task ${id}`;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
