/** `simulator.control`: faults and world changes, the same for code and for POST /__control/<action>. */
import { HISTORY_TIES, type HistoryTies } from './events/event-log.js';
import type { EmitOptions, EventPump } from './live/event-pump.js';
import type { RateGenerator } from './live/rate-generator.js';
import { MAX_DELAY_MS, MAX_RESPONSE_LATENCY_MS } from './options.js';
import type { MalformedKind } from './realtime/malformed-frames.js';
import type { RealtimeHub } from './realtime/realtime-hub.js';
import type { ServerContext } from './server-context.js';
import type { SimulatedEvent, Task } from './types.js';
import type { TaskInput } from './world/world-state.js';

export interface SimulatorStats {
  /** Realtime sockets open now (half-open ones included). */
  openSockets: number;
  /** Realtime sockets accepted since start (or reset). */
  connectionsTotal: number;
  /** Realtime upgrades refused (401/403/404/503) since start (or reset). */
  connectionsRefused: number;
  /** Realtime upgrades received and not answered yet (waiting out `upgradeDelayMs`). */
  upgradesPending: number;
  /** HTTP requests under the API prefix (REST, login and media; not control). */
  requests: number;
  /** Login attempts (POST /users/token), successful or not, rate-limited ones included. */
  logins: number;
  /** Live events emitted (by the rate generator and emit()). */
  eventsEmitted: number;
  /** Live events published late on purpose: drawn by `latePublication`, or emitted with `latenessMs` > 0. */
  lateEventsPublished: number;
  /**
   * Live events recorded with a timestamp (second) older than the newest live event recorded
   * before them: what an all-tasks socket sees out of timestamp order.
   */
  eventsOutOfOrder: number;
  /** Records in history (seeded + live), those `historyLagMs` has not shown yet included. */
  historySize: number;
  /** Seeded records: the first historySeeded ids from firstRecordId; live records follow. */
  historySeeded: number;
  /** Record id of the oldest seeded record (the `firstRecordId` option, 1 by default). */
  firstRecordId: number;
  /** The newest record id (firstRecordId − 1 while history is empty); `interleavedIds` may have skipped ids below it. */
  lastRecordId: number;
  /** Current live rate in events per second. */
  rate: number;
  /** HTTP requests for a snapshot or clip (before faults and authentication). */
  mediaRequests: number;
  /** Media answered 404: an unknown id, or a file not written yet (or never). */
  mediaNotFound: number;
  /** Media answered 503 with Retry-After: a file in its last `mediaDelay.busyMs` of writing. */
  mediaBusy: number;
  /**
   * HTTP requests under the API prefix, media apart (their own counters), that got no 2xx answer:
   * an error status (failNext's, a refused token or login, an unknown id) or a connection closed
   * before the answer. What a client saw fail, and may have retried.
   */
  requestsFailed: number;
}

/** When an event's media exist, in epoch ms: 0 = from the start (seeded events), null = never. */
export interface MediaReadyAt {
  snapshotAt: number | null;
  clipAt: number | null;
}

export type { EmitOptions };

export interface SimulatorControl {
  /** Cuts every realtime socket without a close frame (clients see 1006). */
  dropConnections(): void;
  /** Refuses realtime upgrades with 503 (and Retry-After) for `ms`; open sockets stay. */
  refuseConnections(ms: number): void;
  /** Current realtime sockets stay open but get no events and no pongs (nor server pings). */
  halfOpen(): void;
  /** Closes every realtime socket with a close frame (code 1000-1014 except 1004-1006, or 3000-4999). */
  closeWith(code: number, reason?: string): void;
  /** Sends `count` (default 1) broken frames to every receiving socket. */
  sendMalformed(kind: MalformedKind, count?: number): void;
  /** The next `count` HTTP requests under the prefix (REST, login, media) answer `status` with a JSON detail. */
  failNext(count: number, status: number, options?: { retryAfterSeconds?: number }): void;
  /** Delays every HTTP answer under the prefix by `ms` instead of `responseLatencyMs` (0 = off: back to it). */
  delayResponses(ms: number): void;
  /**
   * Answers every realtime upgrade received from now on `ms` late (accepted or refused); what is
   * published meanwhile never reaches that socket. 0 = at once. `reset()` restores `upgradeDelayMs`.
   */
  delayUpgrades(ms: number): void;
  /**
   * History shows a live event `ms` after its push from now on (0 = at once); events waiting show
   * sooner when it is lowered, and one already shown stays. `reset()` restores `historyLagMs`.
   */
  setHistoryLag(ms: number): void;
  /** Order of same-second history rows from now on: 'id' or 'per-request'. `reset()` restores `historyTies`. */
  setHistoryTies(ties: HistoryTies): void;
  /** Invalidates every token issued so far, the static one included; returns the new static token (also `simulator.token`). */
  expireTokens(): string;
  setTaskStatus(taskId: number, status: string): void;
  /** Adds a task (defaults fill what is not given; extra fields are served as given). */
  addTask(partial?: TaskInput): Task;
  removeTask(taskId: number): void;
  /**
   * Records and pushes `count` events now at full speed; they are in history with the same ids
   * (`historyLagMs` after the push).
   * `latenessMs` fixes how long before now they occurred (0 = on time: a sentinel), overriding
   * camera latency and late publication for these events. `snapshotDelayMs` / `clipDelayMs` fix
   * when their media exist (ms after publication, or 'never'), overriding `mediaDelay`. `like`
   * (a record id) repeats that event's task, second and content under new ids: twins that the
   * basic form cannot tell apart when `media` is 'none' or 'shared'.
   */
  emit(count: number, options?: EmitOptions): Promise<SimulatedEvent[]>;
  /** When record `id`'s snapshot and clip exist (or existed). */
  mediaReadyAt(id: number): MediaReadyAt;
  /** The fixed analysis latency of a camera under `cameraLatencyMs` (0 when off). */
  cameraLatencyMs(cameraId: number): number;
  setRate(eventsPerSecond: number): void;
  stats(): SimulatorStats;
  /**
   * Back to the start: faults off (half-open sockets receive again), seeded tasks and statuses,
   * the initial rate, upgrade delay, history lag and tie order, login limit and counters cleared. History and tokens are kept, so record
   * ids stay unique and clients stay logged in.
   */
  reset(): void;
}

export function createControl(
  ctx: ServerContext,
  hub: RealtimeHub,
  pump: EventPump,
  generator: RateGenerator,
): SimulatorControl {
  const nonNegative = (name: string, value: number) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`${name} must be a number >= 0, got ${String(value)}`);
    }
  };
  return {
    dropConnections: () => hub.dropConnections(),
    refuseConnections(ms) {
      nonNegative('refuseConnections: ms', ms);
      ctx.faults.refuseUntil = Date.now() + ms;
    },
    halfOpen: () => hub.halfOpen(),
    closeWith: (code, reason) => hub.closeWith(code, reason),
    sendMalformed: (kind, count) => hub.sendMalformed(kind, count),
    failNext(count, status, options = {}) {
      if (!Number.isInteger(count) || count < 0)
        throw new RangeError(`failNext: count must be an integer >= 0, got ${count}`);
      if (!Number.isInteger(status) || status < 400 || status > 599) {
        throw new RangeError(`failNext: status must be an HTTP error status 400-599, got ${status}`);
      }
      const { retryAfterSeconds } = options;
      if (retryAfterSeconds !== undefined) nonNegative('failNext: retryAfterSeconds', retryAfterSeconds);
      ctx.faults.failure = count === 0 ? undefined : { remaining: count, status, retryAfterSeconds };
    },
    delayResponses(ms) {
      nonNegative('delayResponses: ms', ms);
      ctx.faults.delayMs = ms;
    },
    delayUpgrades(ms) {
      integerMs('delayUpgrades: ms', ms, MAX_RESPONSE_LATENCY_MS);
      hub.upgradeDelayMs = ms;
    },
    setHistoryLag(ms) {
      integerMs('setHistoryLag: ms', ms, MAX_DELAY_MS);
      ctx.log.lagMs = ms;
    },
    setHistoryTies(ties) {
      if (!HISTORY_TIES.includes(ties)) {
        throw new RangeError(
          `setHistoryTies: ties must be one of ${HISTORY_TIES.join(', ')}, got ${JSON.stringify(ties)}`,
        );
      }
      ctx.log.ties = ties;
    },
    expireTokens: () => ctx.tokens.expireAll(),
    setTaskStatus: (taskId, status) => ctx.world.setTaskStatus(taskId, status),
    addTask: (partial) => ctx.world.addTask(partial),
    removeTask: (taskId) => ctx.world.removeTask(taskId),
    emit: (count, options = {}) => pump.emit(count, options),
    mediaReadyAt(id) {
      if (!ctx.log.has(id)) {
        throw new RangeError(
          `mediaReadyAt: id must be a record id from ${ctx.log.firstId} to ${ctx.log.lastId}, got ${id}`,
        );
      }
      const { snapshotAtMs, clipAtMs } = ctx.media.readyAt(id);
      const epoch = (ms: number) => (Number.isFinite(ms) ? ms : null);
      return { snapshotAt: epoch(snapshotAtMs), clipAt: epoch(clipAtMs) };
    },
    cameraLatencyMs(cameraId) {
      if (!Number.isInteger(cameraId))
        throw new RangeError(`cameraLatencyMs: cameraId must be an integer, got ${cameraId}`);
      return pump.delay.cameraLatencyMs(cameraId);
    },
    setRate: (eventsPerSecond) => generator.setRate(eventsPerSecond),
    stats: () => ({
      openSockets: hub.clients.size,
      connectionsTotal: ctx.counters.connectionsTotal,
      connectionsRefused: hub.connectionsRefused,
      upgradesPending: hub.upgradesPending,
      requests: ctx.counters.requests,
      logins: ctx.counters.logins,
      eventsEmitted: ctx.counters.eventsEmitted,
      lateEventsPublished: ctx.counters.lateEventsPublished,
      eventsOutOfOrder: ctx.counters.eventsOutOfOrder,
      historySize: ctx.log.size,
      historySeeded: ctx.log.seededCount,
      firstRecordId: ctx.log.firstId,
      lastRecordId: ctx.log.lastId,
      rate: generator.rate,
      mediaRequests: ctx.counters.mediaRequests,
      mediaNotFound: ctx.counters.mediaNotFound,
      mediaBusy: ctx.counters.mediaBusy,
      requestsFailed: ctx.counters.requestsFailed,
    }),
    reset() {
      ctx.faults.reset();
      hub.resetFaults();
      ctx.world.reset();
      ctx.limiter.reset();
      generator.setRate(ctx.options.rate);
      hub.upgradeDelayMs = ctx.options.upgradeDelayMs;
      ctx.log.lagMs = ctx.options.historyLagMs;
      ctx.log.ties = ctx.options.historyTies;
      ctx.counters.connectionsTotal = 0;
      ctx.counters.requests = 0;
      ctx.counters.logins = 0;
      ctx.counters.eventsEmitted = 0;
      ctx.counters.lateEventsPublished = 0;
      ctx.counters.eventsOutOfOrder = 0;
      ctx.counters.mediaRequests = 0;
      ctx.counters.mediaNotFound = 0;
      ctx.counters.mediaBusy = 0;
      ctx.counters.requestsFailed = 0;
      hub.connectionsRefused = 0;
    },
  };
}

function integerMs(name: string, value: unknown, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`${name} must be an integer from 0 to ${max} (milliseconds), got ${String(value)}`);
  }
}
