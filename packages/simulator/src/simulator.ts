/** startSimulator(): one HTTP server carrying the REST API, the realtime WebSocket, media and control. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LoginLimiter } from './auth/login-limiter.js';
import { TokenAuthority } from './auth/token-authority.js';
import { createControl, type SimulatorControl } from './control.js';
import type { EventContext } from './events/event-factory.js';
import { EventLog } from './events/event-log.js';
import { FaultState } from './fault-state.js';
import { controlActions } from './http/control-route.js';
import { createRequestHandler } from './http/request-handler.js';
import { ResponseLatencyDraw } from './http/response-latency.js';
import { EventPump } from './live/event-pump.js';
import { RateGenerator } from './live/rate-generator.js';
import { loadClip } from './media/clip-asset.js';
import { MediaSchedule } from './media/media-schedule.js';
import { SnapshotStore } from './media/snapshot-store.js';
import { resolveOptions, type SimulatorOptions } from './options.js';
import { RealtimeHub } from './realtime/realtime-hub.js';
import type { Counters, ServerContext } from './server-context.js';
import type { EventType, Location, Organization, SimulatedEvent, SimulatorForm, Task } from './types.js';
import { WorldState } from './world/world-state.js';

/** Read-only copies of the current world (tasks in detail form). */
export interface WorldView {
  readonly organizations: Organization[];
  readonly locations: Location[];
  readonly eventTypes: EventType[];
  readonly tasks: Task[];
}

export interface Simulator {
  /** e.g. http://127.0.0.1:PORT/apiserver */
  readonly apiUrl: string;
  /** e.g. ws://127.0.0.1:PORT/apiserver (realtime path = wsUrl + '/events/realtime/...') */
  readonly wsUrl: string;
  /** e.g. http://127.0.0.1:PORT */
  readonly siteUrl: string;
  readonly port: number;
  /** A valid static access token; a new one after control.expireTokens(). */
  readonly token: string;
  readonly serviceId: string;
  readonly form: SimulatorForm;
  /** The demo login for POST /users/token. */
  readonly credentials: { email: string; password: string };
  readonly world: WorldView;
  readonly control: SimulatorControl;
  /** The full record of history entry `id` (what the extended form would serve, plus license_plate). */
  getEvent(id: number): SimulatedEvent | undefined;
  /** Closes every socket, timer and the server; resolves when nothing is left open. */
  stop(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const resolved = resolveOptions(options);
  const world = new WorldState(resolved.seed);
  const clip = loadClip();
  const server = createServer({ keepAliveTimeout: 5000 });
  await listen(server, resolved.port, resolved.host);
  const { port } = server.address() as AddressInfo;
  const host = urlHost(resolved.host);
  const siteUrl = `http://${host}:${port}`;
  const apiUrl = `${siteUrl}${resolved.prefix}`;
  const wsUrl = `ws://${host}:${port}${resolved.prefix}`;

  const eventContext: EventContext = {
    seed: resolved.seed,
    mediaBase: apiUrl,
    location: (id) => world.location(id),
    media: resolved.media,
  };
  const counters: Counters = {
    connectionsTotal: 0,
    requests: 0,
    logins: 0,
    eventsEmitted: 0,
    lateEventsPublished: 0,
    eventsOutOfOrder: 0,
    mediaRequests: 0,
    mediaNotFound: 0,
    mediaBusy: 0,
    requestsFailed: 0,
  };
  const ctx: ServerContext = {
    options: resolved,
    world,
    log: new EventLog({
      seed: resolved.seed,
      world,
      context: eventContext,
      historySize: resolved.historySize,
      historyEndMs: resolved.historyEndMs,
      historySpanMs: resolved.historySpanMs,
      historyTasks: resolved.historyTasks,
      ties: resolved.historyTies,
      lagMs: resolved.historyLagMs,
      firstId: resolved.firstRecordId,
      lagSpreadMs: resolved.historyLagSpreadMs,
      interleavedIds: resolved.interleavedIds,
    }),
    tokens: new TokenAuthority({
      lifetimeMs: resolved.tokenLifetimeMs,
      subject: resolved.credentials.email,
      serviceId: resolved.serviceId,
      literalToken: resolved.token,
    }),
    limiter: new LoginLimiter(resolved.loginRateLimit),
    counters,
    faults: new FaultState(),
    responseLatency: new ResponseLatencyDraw(resolved.seed, resolved.responseLatencyMs),
    snapshots: new SnapshotStore(32, resolved.snapshotFile),
    media: new MediaSchedule(
      resolved.seed,
      resolved.firstRecordId + resolved.historySize,
      resolved.mediaDelay,
    ),
    clip,
    eventContext,
  };
  const hub = new RealtimeHub(ctx);
  const pump = new EventPump(ctx, hub);
  const generator = new RateGenerator(pump);
  const control = createControl(ctx, hub, pump, generator);
  server.on('request', createRequestHandler(ctx, controlActions(ctx, control, { siteUrl, apiUrl, wsUrl })));
  server.on('upgrade', (req, socket, head) => hub.handleUpgrade(req, socket, head));
  server.on('clientError', (_error, socket) => socket.destroy());
  generator.setRate(resolved.rate);

  let stopping: Promise<void> | undefined;
  return {
    apiUrl,
    wsUrl,
    siteUrl,
    port,
    get token() {
      return ctx.tokens.staticToken;
    },
    serviceId: resolved.serviceId,
    form: resolved.form,
    credentials: { ...resolved.credentials },
    world: {
      get organizations() {
        return structuredClone(world.organizations) as Organization[];
      },
      get locations() {
        return structuredClone(world.locations) as Location[];
      },
      get eventTypes() {
        return structuredClone(world.eventTypes) as EventType[];
      },
      get tasks() {
        return structuredClone(world.tasks());
      },
    },
    control,
    getEvent: (id) => ctx.log.record(id),
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        generator.stop();
        pump.close();
        hub.close();
        ctx.faults.cancelTimers();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** The host to put in URLs: wildcard addresses are reached through loopback, IPv6 needs brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
