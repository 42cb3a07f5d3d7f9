/** What the HTTP, realtime and control parts of one simulator share. */
import type { LoginLimiter } from './auth/login-limiter.js';
import type { TokenAuthority } from './auth/token-authority.js';
import type { EventContext } from './events/event-factory.js';
import type { EventLog } from './events/event-log.js';
import type { FaultState } from './fault-state.js';
import type { ResponseLatencyDraw } from './http/response-latency.js';
import type { MediaSchedule } from './media/media-schedule.js';
import type { SnapshotStore } from './media/snapshot-store.js';
import type { ResolvedOptions } from './options.js';
import type { WorldState } from './world/world-state.js';

export interface Counters {
  connectionsTotal: number;
  requests: number;
  logins: number;
  eventsEmitted: number;
  /** Live events published late on purpose (latePublication's share, or emit with latenessMs > 0). */
  lateEventsPublished: number;
  /** Live events recorded with a timestamp older than the newest live one recorded before them. */
  eventsOutOfOrder: number;
  /** HTTP requests for a snapshot or clip (before faults and authentication). */
  mediaRequests: number;
  /** Media answers 404: unknown id, or a file not written yet (or never). */
  mediaNotFound: number;
  /** Media answers 503: the file is being written (`mediaDelay.busyMs`). */
  mediaBusy: number;
  /** Requests under the prefix, media apart, that got no 2xx answer (error status, or closed before it). */
  requestsFailed: number;
}

export interface ServerContext {
  options: ResolvedOptions;
  world: WorldState;
  log: EventLog;
  tokens: TokenAuthority;
  limiter: LoginLimiter;
  counters: Counters;
  faults: FaultState;
  /** The time each REST answer takes under `responseLatencyMs`. */
  responseLatency: ResponseLatencyDraw;
  snapshots: SnapshotStore;
  /** When each live event's snapshot and clip exist. */
  media: MediaSchedule;
  clip: Buffer;
  eventContext: EventContext;
}
