import type { DeploymentForm } from '../context/form-state.js';
import type { DownloadOptions, MediaDownload } from '../media-download.js';
import type { ObservationEvent } from '../model/observation-event.js';
import type { Clock, Logger, WebSocketConstructor } from '../ports.js';

export interface RealtimeHistoryQuery {
  startTime: Date;
  endTime?: Date;
  taskIds: number[] | 'all';
}

/**
 * What the realtime subscription needs from the rest of core. The client builds one of these,
 * so the subscription code never reaches into HTTP, auth or address details itself and can be
 * tested with a context made straight from a simulator.
 */
export interface RealtimeContext {
  /** ws(s)://host[:port]/apiserver, without a trailing slash. */
  wsBaseUrl: string;
  serviceId: string | undefined;
  /** The configured form; `auto` is resolved by the subscription and reported with `rememberForm`. */
  form: 'auto' | DeploymentForm;
  rememberForm(form: DeploymentForm): void;
  knownForm(): DeploymentForm | undefined;
  /**
   * Current access token. `rejected` is a token the service refused: the client renews it unless
   * another caller already did (one shared renewal, however many sockets were refused).
   */
  getToken(options?: { rejected?: string; signal?: AbortSignal }): Promise<string>;
  /** Whether a refreshed token can fix a refused upgrade (email/password auth). */
  canRefreshToken: boolean;
  /**
   * Every raw history event in the range for the tasks, all pages, in any order; repeats are
   * fine (dedupe removes them), a missing event is not. Without `endTime` the range grows while
   * it is read: a newest-first server then shifts pages, and two consecutive pages can be
   * identical without the server ignoring `offset`, so no stop rule may rely on that.
   */
  fetchHistory(query: RealtimeHistoryQuery, signal?: AbortSignal): AsyncIterable<unknown>;
  /** Ids of the tasks the service lists now (for basic-form "all"). */
  listTaskIds(signal?: AbortSignal): Promise<number[]>;
  /** An event's snapshot (the `media` option), waited for as `options` say. */
  downloadImage(event: ObservationEvent, options: DownloadOptions): Promise<MediaDownload<Buffer>>;
  WebSocket: WebSocketConstructor;
  clock: Clock;
  logger: Pick<Logger, 'debug' | 'info' | 'warn'>;
}
