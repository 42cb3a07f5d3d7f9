import { asError } from '../errors/as-error.js';
import { ObservationError } from '../errors/observation-error.js';
import { parseEventFilter } from '../filter/event-filter.js';
import type { StoredPosition } from '../ports.js';
import type { RealtimeContext } from './context.js';
import { withOutages } from './outage.js';
import { type ResolvedSelection, resolveSelection } from './selection.js';
import { checkHandlers } from './subscribe-checks.js';
import { resolveOptions } from './subscribe-options.js';
import { type RealtimeSubscription, type RunObserver, startRun } from './subscription.js';
import type {
  CloseOptions,
  StateChangeInfo,
  SubscribeOptions,
  Subscription,
  SubscriptionHandlers,
  SubscriptionState,
  SubscriptionStats,
  SubscriptionTarget,
  TaskSelection,
} from './types.js';

/** How the client keeps count of the runs that hold sockets (so `client.close()` ends them all). */
export interface RunTracking {
  /** A run is about to start; throws when the client was closed. */
  starting(): void;
  started(run: RealtimeSubscription): void;
  /** The run closed or failed: its sockets are going or gone. */
  ended(run: RealtimeSubscription): void;
}

/** For a subscription made straight from a context (tests): nobody keeps count of its runs. */
const untracked: RunTracking = { starting() {}, started() {}, ended() {} };

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
  tracking: RunTracking = untracked,
): Subscription {
  checkHandlers(handlers, options);
  return new SubscriptionHandle(context, selection, withOutages(handlers, context.clock), options, tracking);
}

/**
 * What a host holds: one subscription it can pause, resume and point elsewhere. Each of those ends
 * the running run (which saves its position, as a close does) and starts the next, one after the
 * other in the order they were asked; the host's handlers see one stream of states (`paused` for
 * a pause, not the run's `closed`). `closed` is final; after `failed`, `resume` or `retarget`
 * may start it again.
 */
class SubscriptionHandle implements Subscription, RunObserver {
  // Set by the constructor's first start; undefined only until then.
  private run!: RealtimeSubscription;
  /** The run being ended by a pause or retarget: its `closed` is not the host's. */
  private retiring: RealtimeSubscription | undefined;
  private paused = false;
  private closed = false;
  /** The next run starts live: the selection changed, and the stored position was the old one's. */
  private startLive = false;
  private selection: ResolvedSelection;
  private options: SubscribeOptions;
  /** Control calls one after the other: each waits for the run the last one left. */
  private control: Promise<void> = Promise.resolve();
  /** Control calls asked for and not yet done. */
  private busy = 0;
  private ending: Promise<void> | undefined;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort = (): void => void this.close();

  constructor(
    private readonly context: RealtimeContext,
    selection: TaskSelection,
    private readonly handlers: SubscriptionHandlers,
    options: SubscribeOptions | undefined,
    private readonly tracking: RunTracking,
  ) {
    // Everything is checked once here, so a bad option throws from subscribe() itself.
    this.signal = resolveOptions(options).signal;
    this.selection = resolveSelection(selection);
    // The handle owns the signal: a paused subscription has no run to close.
    const { signal: _signal, ...rest } = options ?? {};
    this.options = rest;
    // An aborted signal closes the subscription before it connects to anything.
    this.start(!this.signal?.aborted);
    if (this.signal?.aborted) void this.close();
    else this.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get state(): SubscriptionState {
    if (this.paused && !this.closed) return 'paused';
    return this.run.state;
  }

  get stats(): SubscriptionStats {
    return this.run.stats;
  }

  get position(): StoredPosition {
    return this.run.position;
  }

  pause(): Promise<void> {
    return this.step(async () => {
      if (this.paused) return;
      this.paused = true;
      await this.retire();
      this.notify('paused', {});
    });
  }

  resume(): Promise<void> {
    return this.step(async () => {
      const failed = this.run.state === 'failed';
      if (!this.paused && !failed) return;
      this.paused = false;
      await this.retire();
      this.start();
    });
  }

  retarget(target: SubscriptionTarget): Promise<void> {
    return this.step(async () => {
      // Both checked before anything changes: a bad target leaves the subscription as it was.
      const next = target.selection === undefined ? this.selection : resolveSelection(target.selection);
      if (target.filter !== undefined) parseEventFilter(target.filter);
      if (selectionKey(next) !== selectionKey(this.selection)) this.startLive = true;
      this.selection = next;
      if (target.filter !== undefined) this.options = { ...this.options, filter: target.filter };
      await this.retire();
      // A paused subscription takes the new target and stays paused until resume().
      if (!this.paused) this.start();
    });
  }

  close(options?: CloseOptions): Promise<void> {
    if (this.ending) return this.ending;
    this.closed = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    // At once (the state is `closed` when close() returns), or after a control call still under
    // way, which then starts no run.
    this.ending = this.busy === 0 ? this.end(options) : this.control.then(() => this.end(options));
    return this.ending;
  }

  private end(options?: CloseOptions): Promise<void> {
    const { run } = this;
    if (run.state === 'failed') return Promise.resolve();
    if (run !== this.retiring) return run.close(options);
    this.notify('closed', {});
    return Promise.resolve();
  }

  stateChanged(run: RealtimeSubscription, state: SubscriptionState, info: StateChangeInfo): void {
    // After the run has finished its own state change (and started its release): a client that
    // closes it in return finds it closing, not a second close beside the first.
    if (state === 'closed' || state === 'failed') queueMicrotask(() => this.tracking.ended(run));
    if (run === this.retiring || run !== this.run) return;
    this.notify(state, info);
  }

  /** Runs one control call after the ones before it; a closed subscription refuses it. */
  private step(action: () => Promise<void>): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    this.busy++;
    const result = this.control.then(() => (this.closed ? Promise.reject(closedError()) : action()));
    // The next call waits for this one whatever its outcome.
    this.control = result.catch(() => undefined).finally(() => this.busy--);
    return result;
  }

  private start(connect = true): void {
    if (this.closed) return;
    this.tracking.starting();
    const position = this.options.position;
    const options =
      this.startLive && position !== undefined
        ? {
            ...this.options,
            position: { store: 'store' in position ? position.store : position, resume: false },
          }
        : this.options;
    this.startLive = false;
    const selection = this.selection === 'all' ? 'all' : [...this.selection];
    const restart = this.run !== undefined;
    this.run = startRun(this.context, selection, this.handlers, options, this);
    this.tracking.started(this.run);
    // A run starts as `connecting` without a change to report; after a pause or a retarget the
    // host last heard `open` or `paused`, so it hears that it is connecting again.
    if (restart) this.notify(this.run.state, {});
    if (connect) this.run.start();
  }

  /** Ends the running run quietly (its position is saved as on any close). */
  private async retire(): Promise<void> {
    this.retiring = this.run;
    await this.run.close();
  }

  private notify(state: SubscriptionState, info: StateChangeInfo): void {
    try {
      this.handlers.onStateChange?.(state, info);
    } catch (error) {
      this.context.logger.warn('onStateChange handler threw', { error: asError(error).message });
    }
  }
}

function closedError(): ObservationError {
  return new ObservationError('SUBSCRIPTION_CLOSED', 'The subscription was closed; subscribe again.');
}

/** One text per selection, whatever order its ids were given in. */
function selectionKey(selection: ResolvedSelection): string {
  return selection === 'all' ? 'all' : [...selection].sort((a, b) => a - b).join(',');
}
