import type { Readable } from 'node:stream';
import { resolveAddresses, type ServiceAddresses } from '../addresses.js';
import { type AnnotatedSnapshotOptions, downloadAnnotatedSnapshot } from '../annotate/annotated-snapshot.js';
import { login } from '../auth/login.js';
import { TokenProvider } from '../auth/token-provider.js';
import type { ClientCore } from '../context/client-core.js';
import { FormState } from '../context/form-state.js';
import { AuthError } from '../errors/auth-error.js';
import { ObservationError } from '../errors/observation-error.js';
import { ValidationError } from '../errors/validation-error.js';
import type { CappedHistory } from '../history/capped-history.js';
import { getJson, type TokenSource } from '../http/request.js';
import { checkTls } from '../http/tls-options.js';
import { download } from '../media/download.js';
import { parseTrustedOrigins } from '../media/media-origins.js';
import { signedUrl, signUrl } from '../media/signed-url.js';
import type { DownloadOptions, MediaDownload, MediaSource } from '../media-download.js';
import type { EventType } from '../model/event-type.js';
import type { ObservationEvent } from '../model/observation-event.js';
import type { AnnotatedSnapshot, HttpTransport } from '../ports.js';
import { completeLogger } from '../ports.js';
import {
  createSubscription,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionHandlers,
  type TaskSelection,
} from '../realtime/index.js';
import { createEventTypesApi } from '../resources/event-types.js';
import {
  type CollectHistoryOptions,
  collectHistory,
  collectHistoryCapped,
  type HistoryOptions,
  history,
  historyAll,
  historyRawItems,
  type RawHistoryOptions,
} from '../resources/events.js';
import type { HistoryFilters } from '../resources/filter-types.js';
import { type LatestEventOptions, latestEvent } from '../resources/latest-event.js';
import { createLocationsApi, type LocationsApi, type RequestOptions } from '../resources/locations.js';
import { createTasksApi, listAll, type TasksApi } from '../resources/tasks.js';
import { createTaskWatcher } from '../task-watch/create-task-watcher.js';
import { taskWatchScope } from '../task-watch/stored-state.js';
import { taskChanges } from '../task-watch/task-changes.js';
import type { TaskWatch } from '../task-watch/types.js';
import { type FirstEvent, type FirstEventOptions, firstEvent } from './first-event.js';
import type { HostDefaults } from './host-defaults.js';
import {
  type ClientOptions,
  checkAuth,
  checkForm,
  checkServiceId,
  checkTimeout,
  resolveRetry,
} from './options.js';
import { createRealtimeContext } from './realtime-context.js';

export interface EventsApi {
  /** One page of `GET /events/history`, normalized. `limit` defaults to 100 and is clamped to the form's maximum. */
  history(filters?: HistoryFilters, options?: HistoryOptions): Promise<ObservationEvent[]>;
  /** Every matching event, page after page (next page prefetched, at most two pages in memory). */
  historyAll(filters?: HistoryFilters, options?: HistoryOptions): AsyncIterable<ObservationEvent>;
  /**
   * Every matching history item exactly as the service sent it (not normalized, nothing skipped),
   * page after page like `historyAll`; `max` stops early. For passing the payload on unchanged.
   */
  historyRaw(filters?: HistoryFilters, options?: RawHistoryOptions): AsyncIterable<unknown>;
  /** Up to `max` matching events in one array. */
  collectHistory(
    filters: HistoryFilters | undefined,
    options: CollectHistoryOptions,
  ): Promise<ObservationEvent[]>;
  /**
   * Up to `max` matching events (the first the service lists), and whether the cap cut others
   * off: `truncated`, the time span read and at which end the rest lie. For a host's "up to a
   * cap" read that must say so when it did not read everything.
   */
  collectHistoryCapped(
    filters: HistoryFilters | undefined,
    options: CollectHistoryOptions,
  ): Promise<CappedHistory>;
  /**
   * The newest event of the selected tasks that passes `filter`, looking back in growing windows
   * (10 s up to `withinMs`, default 7 days); undefined when there is none. For a host's "test"
   * button: an event at once, without waiting for a camera.
   */
  latest(selection: TaskSelection, options?: LatestEventOptions): Promise<ObservationEvent | undefined>;
  /**
   * A host's "test" event: the newest stored event that passes `filter` at once, or else the first
   * live one, with its images prepared (`media`) as a subscription would. Undefined when `signal`
   * aborts first; rejects when the stream fails (a refused token, an unknown service id).
   */
  first(selection: TaskSelection, options?: FirstEventOptions): Promise<FirstEvent | undefined>;
  /** `GET /events/types/:event_id`, cached per client. */
  getType(id: number | string, options?: RequestOptions): Promise<EventType>;
  /** Every event type referenced by a task (the spec has no list endpoint), cached per client. */
  listTypes(options?: RequestOptions): Promise<EventType[]>;
  /** Live events of one task, several tasks or `'all'`, with reconnect, backfill and dedupe. */
  subscribe(
    selection: TaskSelection,
    handlers: SubscriptionHandlers,
    options?: SubscribeOptions,
  ): Subscription;
}

export interface MediaApi {
  /** The URL with `auth_token` appended; only for the service's origin or trusted origins. Needs a token already obtained (see `signUrl`). */
  signedUrl(url: string): string;
  /** Like `signedUrl`, logging in first when the client has not yet got a token. */
  signUrl(url: string, options?: RequestOptions): Promise<string>;
  /** Downloads an event's image (Buffer) or video (stream). */
  download(source: MediaSource, kind: 'image', options?: DownloadOptions): Promise<MediaDownload<Buffer>>;
  download(source: MediaSource, kind: 'video', options?: DownloadOptions): Promise<MediaDownload<Readable>>;
  download(source: MediaSource, kind: 'image' | 'video', options?: DownloadOptions): Promise<MediaDownload>;
  /**
   * Downloads an event's snapshot and draws its detected objects (boxes, name and confidence,
   * warnings highlighted) on it; see `annotateSnapshot`. An image the service sent that cannot be
   * decoded is a ProtocolError.
   */
  annotatedSnapshot(source: MediaSource, options?: AnnotatedSnapshotOptions): Promise<AnnotatedSnapshot>;
}

/** A client of one Observation Service deployment. */
export interface ObservationClient {
  readonly addresses: ServiceAddresses;
  readonly events: EventsApi;
  readonly locations: LocationsApi;
  readonly tasks: TasksApi;
  readonly media: MediaApi;
  /** Subscriptions holding sockets now (a paused or failed one holds none), for diagnostics. */
  readonly openSubscriptions: number;
  /** Closes every subscription and the connection pool. Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates a client with the host's defaults for the ports the options leave out (see
 * host-defaults.ts; each entry point passes its own). Validates the options (throws
 * ValidationError) but sends nothing yet.
 */
export function buildClient(options: ClientOptions, host: HostDefaults): ObservationClient {
  if (!options || typeof options !== 'object') {
    throw new ValidationError('options', typeof options, 'an object with at least url and auth');
  }
  const addresses = resolveAddresses(options.url, options.wsUrl);
  const auth = checkAuth(options.auth);
  const form = new FormState(checkForm(options.form));
  const serviceId = checkServiceId(options.serviceId);
  const timeoutMs = checkTimeout(options.timeoutMs);
  const retry = resolveRetry(options.retry);
  const trusted = parseTrustedOrigins(options.trustedMediaOrigins);
  const logger = completeLogger(options.logger);
  const clock = options.clock ?? host.clock(options);
  // Checked here so every entry refuses bad TLS or proxy settings at once; the host applies them.
  checkTls(options.tls);
  host.check(options);
  const ownTransport = options.transport === undefined;
  const transport: HttpTransport = options.transport ?? host.transport(options, clock);

  let closed = false;
  // Ends the REST reads and media waits still in flight when the client closes (see close()).
  const closing = new AbortController();
  const tokens = new TokenProvider({
    auth,
    clock,
    logger,
    login: (signal) => {
      if (!('email' in auth)) throw new Error('unreachable: static tokens never log in');
      return login({
        transport,
        apiUrl: addresses.apiUrl,
        serviceId,
        email: auth.email,
        password: auth.password,
        timeoutMs,
        clock,
        ...(signal ? { signal } : {}),
      });
    },
  });
  const core: ClientCore = {
    addresses,
    http: {
      transport,
      tokens,
      apiUrl: addresses.apiUrl,
      serviceId,
      timeoutMs,
      retry,
      clock,
      logger,
      closing: closing.signal,
    },
    tokens,
    form,
    clock,
    logger,
    mediaOrigins: new Set([new URL(addresses.siteUrl).origin, new URL(addresses.apiUrl).origin, ...trusted]),
    assertOpen() {
      if (closed) throw new ObservationError('CLIENT_CLOSED', 'The client was closed; create a new one.');
    },
  };

  const types = createEventTypesApi(core);
  // Subscriptions that are still running; a failed or closed one leaves at once, and only the
  // promise of its release is kept (until it settles) so client.close() still waits for it.
  const subscriptions = new Set<{ close(): Promise<void> }>();
  const releasing = new Set<Promise<void>>();
  const release = (run: { close(): Promise<void> }): void => {
    if (!subscriptions.delete(run)) return;
    const done = run.close().catch(() => undefined);
    releasing.add(done);
    void done.finally(() => releasing.delete(done));
  };
  let realtime: ReturnType<typeof createRealtimeContext> | undefined;
  // Made on first use: a client that never subscribes never asks which WebSocket to use.
  const realtimeContext = () =>
    (realtime ??= createRealtimeContext(core, options.WebSocket ?? host.WebSocket(options, refusal)));

  const events: EventsApi = {
    history: (filters, opts) => history(core, filters, opts),
    historyAll: (filters, opts) => historyAll(core, filters, opts),
    historyRaw: (filters, opts) => historyRawItems(core, filters, opts),
    collectHistory: (filters, opts) => collectHistory(core, filters, opts),
    collectHistoryCapped: (filters, opts) => collectHistoryCapped(core, filters, opts),
    latest: (selection, opts) => {
      core.assertOpen();
      return latestEvent(core, selection, opts);
    },
    first: (selection, opts) => {
      core.assertOpen();
      return firstEvent(core, realtimeContext(), events.subscribe, selection, opts);
    },
    getType: types.getType,
    listTypes: types.listTypes,
    subscribe(selection, handlers, opts) {
      core.assertOpen();
      // Each run of a subscription (it starts one, and one more at each resume or retarget) is
      // held until it fails or closes, on its own (signal, auth, …) or by close().
      return createSubscription(realtimeContext(), selection, handlers, opts, {
        starting: () => core.assertOpen(),
        started: (run) => void subscriptions.add(run),
        ended: release,
      });
    },
  };

  const media: MediaApi = {
    signedUrl: (url) => signedUrl(core, url),
    signUrl: (url, opts) => signUrl(core, url, opts?.signal),
    download: ((source: MediaSource, kind: 'image' | 'video', opts?: DownloadOptions) =>
      download(core, source, kind, opts)) as MediaApi['download'],
    annotatedSnapshot: (source, opts) =>
      downloadAnnotatedSnapshot((s, kind, o) => download(core, s, kind, o), source, opts),
  };

  const restTasks = createTasksApi(core);
  /**
   * The status (401/403) when the service refuses `token`, asked with one small REST read with
   * that token and no new login: a read that logged in again after its 401 would succeed, and the
   * socket's refused token would be told as a network failure ("cannot reach the service")
   * instead of renewed or reported as a login problem.
   */
  const refusal = async (token?: string): Promise<number | undefined> => {
    try {
      const offered = token ?? (await tokens.get());
      const asked: TokenSource = { canRefresh: false, get: async () => offered, invalidate: () => {} };
      await getJson({ ...core.http, tokens: asked }, { path: '/tasks', query: { limit: 1 } });
      return undefined;
    } catch (error) {
      return AuthError.isInstance(error) ? error.status : undefined;
    }
  };
  const watches = new Set<TaskWatch>();
  // Which service a stored task watch state belongs to.
  const taskOrigin = `${addresses.apiUrl}|${serviceId ?? ''}`;
  const tasks: TasksApi = {
    ...restTasks,
    async changes(stored, opts) {
      const listed = await listAll(core, opts);
      return taskChanges(stored, listed, new Date(clock.now()), taskWatchScope(taskOrigin));
    },
    watch(opts, handlers) {
      core.assertOpen();
      const watch = createTaskWatcher(
        { tasks: restTasks, clock, origin: taskOrigin, logger },
        opts,
        handlers,
      );
      watches.add(watch);
      return {
        async close() {
          watches.delete(watch);
          await watch.close();
        },
        poll: () => watch.poll(),
        get state() {
          return watch.state;
        },
        get stats() {
          return watch.stats;
        },
      };
    },
  };

  const client: ObservationClient = {
    addresses,
    events,
    locations: createLocationsApi(core),
    tasks,
    media,
    get openSubscriptions() {
      return subscriptions.size;
    },
    async close() {
      if (closed) return;
      closed = true;
      const open = [...subscriptions, ...watches];
      subscriptions.clear();
      watches.clear();
      // Subscriptions first: their handlers' reads (an event's snapshot) finish as they drain.
      await Promise.allSettled([...open.map((s) => s.close()), ...releasing]);
      // A read still in flight now is the caller's to drop, not a network failure to report or
      // retry: it ends with CLIENT_CLOSED, before the pools are closed under it.
      closing.abort(
        new ObservationError('CLIENT_CLOSED', 'The client was closed while this request was in flight.'),
      );
      // A transport passed in by the host belongs to the host.
      if (ownTransport) await transport.close?.();
    },
  };
  trackedSubscriptions.set(client, () => subscriptions.size + releasing.size);
  return client;
}

/** Test seam (not exported from the package): how many subscriptions a client still holds. */
export const trackedSubscriptions = new WeakMap<ObservationClient, () => number>();
