import type { EventFilterInput } from '../filter/event-filter.js';
import type { EventMedia, SubscribeMediaOptions } from '../media/event-media.js';
import type { DetectedObject, ObservationEvent } from '../model/observation-event.js';
import type { PositionStore, StoredPosition } from '../ports.js';

/** One task id, several distinct task ids, or every task of the service. */
export type TaskSelection = number | number[] | 'all';

/**
 * Where a subscription is in its life. `closed` is final; `failed` (an error waiting cannot fix)
 * ends the stream until `resume()` or `retarget()` starts it again; `paused` after `pause()`.
 */
export type SubscriptionState =
  | 'connecting'
  | 'open'
  | 'reconnecting'
  | 'backfilling'
  | 'paused'
  | 'closed'
  | 'failed';

/** Extra facts about a state change, for hosts to show (attempt counter, cause). */
export interface StateChangeInfo {
  /** Reconnect attempt number (1 = first retry) while `reconnecting`. */
  attempt?: number;
  /** Why the state changed, when an error caused it (never carries a token). */
  error?: Error;
}

/** Counters of a subscription, all since it started. */
export interface SubscriptionStats {
  /** Frames received on live sockets (valid or not). */
  received: number;
  /** Events the host acknowledged (live and backfilled), `filter`ed ones included. */
  delivered: number;
  /** Events the `filter` kept from the handler (acknowledged in their place). */
  filtered: number;
  /**
   * Events received again after they were admitted (the catch-up reads back as far as the allowed
   * lateness, so most of it is repeats) and not delivered twice. Admission is by identity only:
   * an event is never dropped for being old or out of order.
   */
  duplicatesDropped: number;
  /** Events delivered from history after a (re)connect. */
  backfilled: number;
  /** Frames that were not a usable event (reported through `onError`). */
  malformed: number;
  /** Connections re-established after a drop. */
  reconnects: number;
  /** Events discarded by the `drop-oldest` overflow policy. */
  dropped: number;
  /**
   * Events the `cooldown` kept from the handler (another event of their key passed within `ms` of
   * their time); acknowledged in their place, like filtered ones.
   */
  heldBack: number;
  /**
   * Events core gave up on: the handler failed (threw, rejected or was late) on the last attempt,
   * or once under `ack.onFailure` `release`. They count as handled; `onGiveUp` got them.
   */
  givenUp: number;
  /** Events waiting for the handler right now. */
  queued: number;
  /** Events with the handler and not yet acknowledged, or acknowledged and waiting for an earlier one. */
  inFlight: number;
  /** The most events that ever waited for the handler at once. */
  peakQueued: number;
  /**
   * Sockets still reading back the allowed lateness after a catch-up, live meanwhile: events
   * published late while away may still arrive from it (0 once every catch-up is complete).
   */
  readingBack: number;
  /** Occurrence time of the last delivered event. */
  lastEventAt?: Date;
}

export interface EventMeta {
  /** The payload as the service sent it. */
  raw: unknown;
  /** `live` from the socket, `backfill` from history after a (re)connect. */
  source: 'live' | 'backfill';
  /**
   * 1 the first time the event is handed over; 2, 3… when it is handed over again (`ack.onFailure`
   * `retry`, or after a restart with `position.unfinished` `rerun`).
   */
  attempt: number;
  /** With the `media` option: the images prepared for the event, and which are missing. */
  media?: EventMedia;
  /**
   * With a `filter` that sets object conditions (names, confidence, warnings): the objects that
   * met them, surest first. The event passed because of these, so an alert names `matched[0]`.
   */
  matched?: DetectedObject[];
  /**
   * With the `cooldown` option, on every event that passes it: its key (`camera:12`, `task:3`,
   * `object:person`, `event:Intrusion`) and how many events of that key were held back since the
   * previous one that passed (0 when none), e.g. for "and 4 more" in an alert.
   */
  cooldown?: { key: string; heldBack: number };
}

/**
 * Events core gave up on (`onGiveUp`): the handler failed on their last attempt (or once, under
 * `ack.onFailure` `release`). The position moves past them, so the host keeps them if they matter
 * (to show them, or to send them again itself).
 */
export interface GivenUp {
  events: ObservationEvent[];
  metas: EventMeta[];
  /** Calls made (attempts), the last one included. */
  attempts: number;
  reason: 'failed' | 'late';
  /** The last failure's error (undefined when late). */
  error?: Error;
  /** When the first attempt failed, and when core gave up (host clock). */
  firstFailedAt: Date;
  gaveUpAt: Date;
}

/** Events handed over together (`onBatch`), in delivery order. */
export interface EventBatch {
  events: ObservationEvent[];
  metas: EventMeta[];
  /**
   * A stable identity of the batch (see `batchIdentity`): the same events in the same grouping
   * give the same key in every process, e.g. for n8n's execution deduplication.
   */
  key: string;
  /**
   * 1 the first time the batch is handed over; 2, 3… when it is handed over again (`ack.onFailure`
   * `retry`, or after a restart with `position.unfinished` `rerun`).
   */
  attempt: number;
  /** This attempt's signal: see `SubscriptionHandlers.onEvent`. */
  signal: AbortSignal;
}

/**
 * Exactly one of `onEvent` and `onBatch`. What the handler returns is the acknowledgement: nothing
 * (done at once), or a promise that settles once the host's work for the event is durable. Core
 * alone moves the position, and only past acknowledged events, in order. A handler that throws or
 * rejects (`HANDLER_ERROR`), or a promise not settled within `ack.deadlineMs` (`HANDLER_TIMEOUT`),
 * is reported once per event and then released or handed over again, as `ack` says.
 */
export interface SubscriptionHandlers {
  /**
   * Called once per event, in order per task. A returned promise is awaited before the next event
   * (with `maxInFlight` N, up to N promises may be pending). `signal` is this attempt's: it aborts
   * when core stops waiting for the attempt while it is still out, right after the report that
   * says so: late (a `TimeoutError`; core hands the event over again or gives up, as `ack` says),
   * or the subscription closed (an `AbortError`). A host that keeps books of what is out lets go of
   * the attempt then, and may pass the signal on to the work it starts. It never aborts for an
   * attempt that settled, nor for one whose handler returned nothing.
   */
  onEvent?(event: ObservationEvent, meta: EventMeta, signal: AbortSignal): void | Promise<void>;
  /**
   * Called once per batch (`options.batch`: up to `size` events, or fewer when `waitMs` passed
   * since its first event). With `maxInFlight` N, up to N batches may be pending.
   */
  onBatch?(batch: EventBatch): void | Promise<void>;
  onStateChange?(state: SubscriptionState, info: StateChangeInfo): void;
  /**
   * What to show of the subscription: at every state change, and when an outage starts (before the
   * first call: `{ state: 'connecting' }`).
   */
  onStatus?(status: SubscriptionStatus): void;
  /** Reportable problems that do not stop the stream (malformed frames, failed backfills, handler errors), and the final error of `failed`. */
  onError?(error: Error): void;
  /**
   * The stream went down, and why (`reason`, and `text` in the user's words): once per outage,
   * however often core retries meanwhile. A host shows this, not each attempt. With it, a task list
   * that cannot be read (`TASK_LIST_FAILED`) is told here only, not through `onError`.
   */
  onOutage?(outage: Outage): void;
  /** The stream that went down is open again: once, after `onOutage`. */
  onRecovered?(recovery: Recovery): void;
  /**
   * Core gave up on an event (or a batch, as one unit) whose handler failed: after its last
   * attempt, or at once under `ack.onFailure` `release`. Called once per unit, right after the
   * `HANDLER_GAVE_UP` report and before the position moves past it.
   */
  onGiveUp?(given: GivenUp): void;
}

export interface SubscribeOptions {
  /**
   * Where the host keeps the durable position (n8n static data, Node-RED context). Core loads it
   * once, catches up from it, and saves it as events are handled and on close. An empty store is
   * a first start and begins live; a corrupt, foreign or unreadable position is reported once
   * (`POSITION_RESET`) and replaced by `lookBackMs`. `{ store, resume: false }` does not read the
   * store: the start begins live and its position replaces the stored one (a user's fresh
   * activation, a new task selection).
   *
   * `unfinished` is for a host that may have done the work of an event it never acknowledged,
   * and persists the store only at its own moments (n8n saves a trigger's static data when it
   * emits). The position then also keeps the events (or batches) handed over and not yet
   * acknowledged, and is written before each hand-over, so the host holds the record before its
   * work begins (with a store that saves synchronously):
   * - `record`: kept; a start does not read what an earlier run left (that run's work was let
   *   finish, as n8n does on a deactivation);
   * - `rerun`: kept, and a resumed start hands what an earlier run left unfinished over again
   *   with the next attempt (`meta.attempt`, `EventBatch.attempt`): it may have been cut off
   *   mid-work (a crash), and the host can tell it from a first hand-over.
   *
   * `ifMissing` says what an empty store means: `live` (default), a first start; `look-back`, a
   * position had been saved and the store lost it (a host restarting a trigger that ran, whose
   * store others can overwrite), so the start catches up `lookBackMs` and reports it once
   * (`POSITION_RESET`): at least once, where starting live would skip the downtime.
   */
  position?:
    | PositionStore
    | {
        store: PositionStore;
        resume: boolean;
        unfinished?: 'record' | 'rerun';
        ifMissing?: 'live' | 'look-back';
      };
  /**
   * Where to start without a usable position: this far back (default 0: live). Without a
   * `position` store it applies to every start; with one, when the stored position was unusable.
   */
  lookBackMs?: number;
  /**
   * How late an event may be published (after its `timestamp`) and still be delivered exactly once
   * after a reconnect or restart: every catch-up reads back this far (default 120000, 2 minutes).
   * Later events that arrive live are still delivered; only a catch-up cannot find them.
   */
  allowedLatenessMs?: number;
  /** Under a steady stream, save the position at most this often (default 1000; 0 = after every event). */
  positionSaveMs?: number;
  /** Never look further back than this when catching up (default 1 hour). */
  maxLookBackMs?: number;
  /** Extra read-back before the lateness, for same-second events (default 2000). */
  overlapMs?: number;
  /**
   * How long history may lag the live feed (default 1500): an event pushed while the socket was
   * down may show in history only this long after it was pushed (a search index's refresh, a read
   * replica). So after every catch-up, once this long has passed since the socket opened, what a
   * catch-up could not see yet is read once more (see the README for what it costs). 0: history
   * shows every event as soon as it is pushed; no second read.
   */
  historyLagMs?: number;
  /**
   * Only events that pass (names, object names, confidence, warnings; see `parseEventFilter`)
   * reach the handler; the others are acknowledged in their place, so the position passes them.
   */
  filter?: EventFilterInput;
  /** With `onBatch`: events per batch (default 1) and the longest wait for a batch to fill (default 1000 ms). */
  batch?: { size?: number; waitMs?: number };
  /** Heartbeat period: ping interval and pong deadline, or idle timeout without ping (default 30000). */
  heartbeatMs?: number;
  /** Reconnect backoff: capped exponential with full jitter (default 500 ms .. 30 s). */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Basic form with `'all'`: how often the task list is re-read (default 60000). */
  taskRefreshMs?: number;
  /** Most events waiting for the handler before the overflow policy applies (default 1000). */
  highWaterMark?: number;
  /** `pause` stops reading the sockets (nothing lost); `drop-oldest` discards, counted in `stats.dropped`. */
  overflow?: 'pause' | 'drop-oldest';
  /**
   * Backpressure: how many events (`onEvent`) or batches (`onBatch`) may be with the handler
   * unacknowledged at once (default 1: each promise is awaited before the next; 1 to 10000).
   * Still handed over in order; an event counts as handled (and the saved position covers it)
   * only once it and every earlier one were acknowledged. While the limit is reached, core
   * stops reading the sockets (history keeps what the host cannot take yet).
   */
  maxInFlight?: number;
  /**
   * Hand each event over with its snapshot and/or annotated snapshot (`meta.media`). A fresh
   * event's snapshot is waited for (`waitMs`, default 10 s); an image that does not come is
   * flagged in `meta.media.missing` and reported once (`MEDIA_MISSING`), and the event goes out
   * anyway. Up to 64 events are prepared ahead of the handler (their downloads overlap); the
   * handler still gets at most `maxInFlight` at once, in the order the events arrived.
   */
  media?: SubscribeMediaOptions;
  /**
   * What becomes of an event whose handler does not acknowledge it: its promise rejects (or the
   * handler throws), or it is still pending `deadlineMs` after the call (default 600000, 10
   * minutes; 1 to 86400000). Either is reported once per event through `onError`
   * (`HANDLER_ERROR`, `HANDLER_TIMEOUT`), then with `onFailure`:
   * - `release` (default): the event counts as handled; the position moves past it.
   * - `retry`: it is handed over again (`meta.attempt` 2, 3…) until `attempts` calls were made
   *   (default 3; 1 to 10), then released: at once, or after `retryPausesMs`.
   * `onLate` sets the same for a late one apart (default: as `onFailure`): a handler still working
   * when its deadline passes (an n8n execution running for a day) may be better let go than run a
   * second time beside itself.
   * A late promise that settles after it was released or handed over again is ignored. A batch
   * (`onBatch`) is one unit: it is released or handed over again whole. An event released after it
   * failed is given up: reported once more (`HANDLER_GAVE_UP`) and handed to `onGiveUp`.
   */
  ack?: {
    deadlineMs?: number;
    attempts?: number;
    onFailure?: 'release' | 'retry';
    onLate?: 'release' | 'retry';
    /**
     * With `retry`: the pause before attempt 2, 3… in ms (1 to 10 of them, each 0 to 86400000),
     * e.g. `[30000, 120000, 600000]`; the attempts are then `1 + retryPausesMs.length` (it
     * replaces `attempts`). During a pause the event stays unacknowledged and keeps its
     * `maxInFlight` slot: the stored position waits for it, so a crash meanwhile repeats what
     * came after it. `close()` ends a pause; the event is then not handed over again in this run.
     */
    retryPausesMs?: number[];
    /**
     * Who handles the events, in the host's words, as the reports of a failed, late or given-up
     * event name it: e.g. `the flow` gives "the flow did not finish event 8713 within 60 s". 1 to
     * 40 characters; default `onEvent` (or `onBatch`), the handler's name in this API.
     */
    handlerLabel?: string;
  };
  /**
   * At most one event per key every `ms` (1000 to 86400000) reaches the handler; the others are
   * held back: acknowledged in their place like filtered ones, counted in `stats.heldBack`, and
   * counted in the next passing event's `meta.cooldown.heldBack`. The key (`per`):
   * - `camera`: the event's camera id when it has one (the extended form), else its task id;
   * - `task`: its task id;
   * - `object`: the name of the object the filter matched (`meta.matched[0]`), else of its first
   *   detected object, else its event name.
   * Judged on the events' own time (`occurredAt`), not on arrival, so a catch-up after a restart
   * judges them as they happened: an event is held when one of its key that passed lies within
   * `ms` of it, either side. Only events that pass the `filter` are judged. An event that passed and
   * was then given up (see `ack`) frees its key again. The state is kept in the stored position.
   */
  cooldown?: { ms: number; per: 'camera' | 'task' | 'object' };
  /** Aborting closes the subscription. */
  signal?: AbortSignal;
}

/** What `retarget` changes; what it leaves out stays as it is. */
export interface SubscriptionTarget {
  selection?: TaskSelection;
  filter?: EventFilterInput;
}

/** How a subscription closes. */
export interface CloseOptions {
  /**
   * A graceful stop: nothing new is handed over, and the events the handler is working on get up
   * to this long to be acknowledged before the last save (it ends sooner once none is out, or once
   * none was acknowledged for a quarter of it). Work that finishes during a host's stop is then
   * not delivered again at the next start. 0 (the default): no wait.
   */
  drainMs?: number;
}

/** A running subscription. */
export interface Subscription {
  /**
   * Stops everything; idempotent; resolves when every socket, timer and listener is gone.
   * Events still waiting are discarded; an `onEvent` already running is not awaited, unless
   * `drainMs` says how long it may take (see `CloseOptions`).
   */
  close(options?: CloseOptions): Promise<void>;
  /**
   * Stops listening and keeps the position (saved as on close); resolves once the sockets are
   * closed. Pause, resume and retarget take effect one after the other, in the order called.
   */
  pause(): Promise<void>;
  /** Listens again after `pause()` (or after `failed`), catching up from the position as a restart does. */
  resume(): Promise<void>;
  /**
   * Other tasks and/or another filter (validated like subscribe's). A changed selection starts
   * live, and its position replaces the old selection's; a filter alone resumes from the position.
   * A paused subscription takes the new target and stays paused until `resume()`.
   */
  retarget(target: SubscriptionTarget): Promise<void>;
  readonly state: SubscriptionState;
  /** A snapshot of the counters, since the subscription last started, resumed or was retargeted. */
  readonly stats: SubscriptionStats;
  /** The position as it would be saved now (what the `position` store receives). */
  readonly position: StoredPosition;
}

/** Why a stream is down, as a host shows it (and a user acts on it). */
export type OutageReason =
  /** The service refused the token or the login: fix the credentials. */
  | 'credentials'
  /** The service refused access (HTTP 403): most often a wrong service id. */
  | 'forbidden'
  /** Nothing at that address (HTTP 404): a wrong URL or path. */
  | 'not-found'
  /** No answer at all (connection refused, unknown host, timeout, connection lost). */
  | 'unreachable'
  /** The service answered with an error of its own (5xx, 429): it may come back by itself. */
  | 'service-error'
  /** Anything else; `text` says what. */
  | 'other';

/** A stream that went down: told once per outage, whatever the number of retries. */
export interface Outage {
  reason: OutageReason;
  /** Short, in the user's words, e.g. "cannot reach the service (ECONNREFUSED)". */
  text: string;
  /** A few words for a status ring: `HTTP 404`, `ECONNREFUSED`, `credentials refused`. */
  short: string;
  /** The failed request or connection, e.g. "GET http://host/apiserver/tasks failed with HTTP 404". */
  detail: string;
  /** The error that showed it. */
  error: Error;
}

/** The stream is back: told once, when the outage that was told is over. */
export interface Recovery {
  reason: OutageReason;
  /** How long it was down, in ms. */
  downMs: number;
}

/**
 * What a host shows of its subscription (a status ring, a line), decided by core once for every
 * host: the state, and what to say beside it. A host displays it in its own idiom.
 */
export interface SubscriptionStatus {
  state: SubscriptionState;
  /** While `connecting` or `reconnecting` after a try that failed: core's attempt (1 = first retry). */
  attempt?: number;
  /**
   * With `attempt`: why the last try failed (its error's message, a socket that dropped included),
   * for a host that logs each retry. The outage as a whole is told once, by `onOutage`.
   */
  retryingAfter?: string;
  /**
   * While an outage lasts that began before the stream was ever open (nothing has worked yet: a
   * wrong address, a service that is not there), why it cannot connect, short (`HTTP 404`,
   * `ECONNREFUSED`): the host shows this rather than "connecting". Not set for a stream that was
   * open before, whose retries are a reconnect like any other.
   */
  cannotConnect?: string;
  /** `failed` because the service refused the credentials (a token, a login): nothing to wait for. */
  credentialsRefused?: true;
  /** `failed`: the error the stream ended with, for a host that shows a final failure (n8n's workflow error). */
  failure?: Error;
}
