/** Options of startSimulator(), their defaults and validation. */
import type { RateLimit } from './auth/login-limiter.js';
import { HISTORY_TIES, type HistoryOrder, type HistoryTies } from './events/event-log.js';
import { hash2 } from './random.js';
import {
  type CameraLatency,
  type LatePublication,
  type MediaDelay,
  REALISM_LEVELS,
  REALISM_PRESETS,
  type Realism,
  type ResponseLatency,
} from './realism.js';
import { EVENT_MEDIA, type EventMedia, type SimulatorForm } from './types.js';

export interface SimulatorOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Path prefix of the API; default '/apiserver'. Use '' for none. */
  prefix?: string;
  /** Which deployment generation to behave as; default 'both'. */
  form?: SimulatorForm;
  /** Seed of the world and of every generated event; default 1. */
  seed?: number;
  /** Live events per second across all active tasks; default 0 (none). */
  rate?: number;
  /** What an over-maximum `limit` gets: 'reject' (default, 422 naming the maximum) or 'clamp'. */
  overLimit?: 'reject' | 'clamp';
  /** Order of history results; default 'desc' (newest first). Clients must not rely on it. */
  historyOrder?: HistoryOrder;
  /** Lifetime of tokens issued by login; default 24 h. */
  tokenLifetimeMs?: number;
  /** Login attempts allowed per window; default 20 per 60 s. */
  loginRateLimit?: RateLimit;
  /** Number of seeded past events; default 5000. Costs no memory: events are generated on demand. */
  historySize?: number;
  /**
   * Record id of the oldest seeded event; every later record (seeded, then live) counts up from it.
   * Default 1. A real service never reuses a record id: when the simulator is restarted under a
   * host that keeps state (n8n's executions are deduplicated by event id), start it above the
   * last run's newest id (`control.stats().lastRecordId + 1`). Content and times do not change.
   */
  firstRecordId?: number;
  /** Time span the seeded events cover, ending at `historyEnd`; default 7 days. */
  historySpanMs?: number;
  /** End of the seeded history (exclusive); default the start time. Fix it for reproducible timestamps. */
  historyEnd?: Date | string | number;
  /**
   * Which tasks seeded events belong to: 'all' (default) the seeded tasks whatever their status,
   * as over days in which tasks were paused and resumed; 'active' only those active at start
   * (operating or video), the tasks live events go to, for a recent busy past that continues live.
   */
  historyTasks?: HistoryTasks;
  /** Service id of the workspace (extended form); default derived from the seed. */
  serviceId?: string;
  /** Demo login; default demo@observation.local / observation-demo. */
  credentials?: { email: string; password: string };
  /** A literal static token to accept (any string); default a freshly signed JWT. */
  token?: string;
  /** Server pings on open sockets like uvicorn does; default 20000 ms, 0 = off. */
  pingIntervalMs?: number;
  /** Serve POST /__control/<action>; default true. */
  controlEndpoint?: boolean;
  /**
   * Preset for the options below, which override it one by one: 'ideal' (default: all off),
   * 'mild' or 'messy'. See the README for the values and why they are plausible.
   */
  realism?: Realism;
  /**
   * Every camera gets a fixed analysis latency drawn from [min, max] ms (from the seed and the
   * camera id): an event occurring at t on it is recorded and pushed at t + latency, so on a
   * socket for several cameras events arrive out of timestamp order. { min: 0, max: 0 } = off.
   */
  cameraLatencyMs?: CameraLatency;
  /**
   * That share (0..1) of live events (drawn from the seed and the record id) is recorded and
   * pushed between minMs and maxMs after its timestamp, instead of after the camera's latency.
   * A socket not connected then never gets it; history has it from then on. share 0 = off.
   */
  latePublication?: LatePublication;
  /** History answers at most this many items per page whatever `limit` asked, silently; 0 = no cap. */
  historyPageCap?: number;
  /**
   * History answers hold as many whole rows as fit in this many bytes of JSON (at least one row),
   * silently, so pages are shorter than asked and of varying length while more rows follow; 0 = no cap.
   */
  historyPageBytes?: number;
  /** Send `timestamp` as a number (Unix seconds) in live frames and history items. */
  numericTimestamps?: boolean;
  /**
   * Every HTTP answer under the prefix (history, tasks, login, media, ...) waits a duration drawn
   * from [min, max] ms (from the seed and a request counter), as a service across a WAN does.
   * `control.delayResponses(ms)` overrides it while > 0. { min: 0, max: 0 } = off.
   */
  responseLatencyMs?: ResponseLatency;
  /**
   * Media are written after the event is published: the snapshot `snapshotMs` { min, max } after
   * publication, the clip `clipMs` { min, max } after the event's timestamp (its recording plus
   * writing; never before publication), drawn per record from the seed. Until then the media URL
   * answers 404, and in the last `busyMs` before the file is complete 503 with Retry-After.
   * Seeded (past) events' media always exist. All zero = off.
   */
  mediaDelay?: MediaDelay;
  /**
   * Serve this image file (a camera's JPEG or PNG, e.g. a 1080p frame) as every event's snapshot
   * instead of the drawn 640×360 PNG, for figures that need real camera resolutions.
   */
  snapshotFile?: string;
  /**
   * Order of history rows of the same second (the wire time's resolution): 'id' (default: by
   * record id, `desc` the exact reverse of `asc`) or 'per-request': an order each request draws
   * for itself, as a database sorting on the time alone gives, so OFFSET pages over a busy second
   * skip some rows and repeat others. `control.setHistoryTies()` changes it at run time.
   */
  historyTies?: HistoryTies;
  /**
   * A live event shows in history this many ms after it was pushed on the websocket (a search
   * index's refresh, a read replica); default 0. `control.setHistoryLag()` changes it at run time.
   */
  historyLagMs?: number;
  /**
   * Each live event shows in history up to this many ms later than `historyLagMs`, a share drawn
   * per event (from the seed and its position), as a search index whose shards refresh apart
   * does: an event pushed later may show before one pushed earlier. Default 0 (one lag for all).
   */
  historyLagSpreadMs?: number;
  /**
   * Before each live event's record id the id sequence skips up to this many ids (drawn per
   * event), taken by rows of other writers this service never lists (a database shared with
   * other workspaces' cameras writing at once): the rows of one second do not have consecutive
   * ids, and some ids answer 404. Default 0: live ids follow one another.
   */
  interleavedIds?: number;
  /**
   * Every realtime upgrade (accepted or refused) is answered this many ms after it arrives
   * (a proxy, a busy service); events published meanwhile do not reach that socket. Default 0;
   * `control.delayUpgrades()` changes it at run time.
   */
  upgradeDelayMs?: number;
  /**
   * What events' `image_url` / `video_url` hold: 'unique' (default) a file per event, 'none' empty
   * strings (a deployment storing no media), 'shared' the same URLs for every event of a task.
   */
  media?: EventMedia;
}

export type HistoryTasks = 'all' | 'active';

export interface ResolvedOptions {
  port: number;
  host: string;
  prefix: string;
  form: SimulatorForm;
  seed: number;
  rate: number;
  overLimit: 'reject' | 'clamp';
  historyOrder: HistoryOrder;
  tokenLifetimeMs: number;
  loginRateLimit: RateLimit;
  historySize: number;
  firstRecordId: number;
  historySpanMs: number;
  historyEndMs: number;
  historyTasks: HistoryTasks;
  serviceId: string;
  credentials: { email: string; password: string };
  token: string | undefined;
  pingIntervalMs: number;
  controlEndpoint: boolean;
  realism: Realism;
  cameraLatencyMs: CameraLatency;
  latePublication: LatePublication;
  historyPageCap: number;
  historyPageBytes: number;
  numericTimestamps: boolean;
  responseLatencyMs: ResponseLatency;
  mediaDelay: MediaDelay;
  snapshotFile: string | undefined;
  historyTies: HistoryTies;
  historyLagMs: number;
  historyLagSpreadMs: number;
  interleavedIds: number;
  upgradeDelayMs: number;
  media: EventMedia;
}

/** Longest latency, lateness or media delay accepted: one day. */
export const MAX_DELAY_MS = 24 * 3600 * 1000;
/** Longest REST answer time accepted: a minute, beyond which real clients and gateways time out. */
export const MAX_RESPONSE_LATENCY_MS = 60_000;
/** Largest history page budget accepted: 1 GiB, far beyond any page a client can hold. */
export const MAX_PAGE_BYTES = 2 ** 30;
/** Largest first record id accepted: far beyond any real id, with room for every later record. */
export const MAX_FIRST_RECORD_ID = 2 ** 50;

export const DEFAULT_CREDENTIALS = { email: 'demo@observation.local', password: 'observation-demo' };

export function resolveOptions(options: SimulatorOptions = {}, nowMs = Date.now()): ResolvedOptions {
  const seed = options.seed ?? 1;
  integer('seed', seed, -(2 ** 31), 2 ** 32 - 1);
  const port = options.port ?? 0;
  integer('port', port, 0, 65535);
  const form = options.form ?? 'both';
  oneOf('form', form, ['basic', 'extended', 'both']);
  const overLimit = options.overLimit ?? 'reject';
  oneOf('overLimit', overLimit, ['reject', 'clamp']);
  const historyOrder = options.historyOrder ?? 'desc';
  oneOf('historyOrder', historyOrder, ['asc', 'desc']);
  const rate = options.rate ?? 0;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) {
    throw new RangeError(
      `startSimulator: rate must be a number >= 0 (events per second), got ${String(rate)}`,
    );
  }
  const historySize = options.historySize ?? 5000;
  integer('historySize', historySize, 0, 100_000_000);
  const firstRecordId = options.firstRecordId ?? 1;
  // Room above it for the seeded records and a billion live ones, all safe integers.
  integer('firstRecordId', firstRecordId, 1, MAX_FIRST_RECORD_ID);
  const historySpanMs = options.historySpanMs ?? 7 * 24 * 3600 * 1000;
  integer('historySpanMs', historySpanMs, 1000, Number.MAX_SAFE_INTEGER);
  const tokenLifetimeMs = options.tokenLifetimeMs ?? 24 * 3600 * 1000;
  integer('tokenLifetimeMs', tokenLifetimeMs, 1, Number.MAX_SAFE_INTEGER);
  const loginRateLimit = options.loginRateLimit ?? { max: 20, windowMs: 60_000 };
  integer('loginRateLimit.max', loginRateLimit.max, 1, Number.MAX_SAFE_INTEGER);
  integer('loginRateLimit.windowMs', loginRateLimit.windowMs, 1, Number.MAX_SAFE_INTEGER);
  const pingIntervalMs = options.pingIntervalMs ?? 20_000;
  integer('pingIntervalMs', pingIntervalMs, 0, 2 ** 31 - 1);
  let prefix = options.prefix ?? '/apiserver';
  if (typeof prefix !== 'string' || (prefix !== '' && !/^(\/[A-Za-z0-9._~-]+)+\/?$/.test(prefix))) {
    throw new RangeError(
      `startSimulator: prefix must be '' or a path like '/apiserver', got ${JSON.stringify(options.prefix)}`,
    );
  }
  prefix = prefix.replace(/\/$/, '');
  const historyEndMs =
    // The exact start, not its second: a busy past (hundreds of events per second) stays dense
    // right up to the first live event.
    options.historyEnd === undefined ? nowMs : new Date(options.historyEnd).getTime();
  if (!Number.isFinite(historyEndMs)) {
    throw new RangeError(
      `startSimulator: historyEnd must be a date, got ${JSON.stringify(options.historyEnd)}`,
    );
  }
  const historyTasks = options.historyTasks ?? 'all';
  oneOf('historyTasks', historyTasks, ['all', 'active']);
  const serviceId = options.serviceId ?? defaultServiceId(seed);
  if (typeof serviceId !== 'string' || !/^[A-Za-z0-9._~-]+$/.test(serviceId)) {
    throw new RangeError(
      'startSimulator: serviceId must be a non-empty URL path segment (letters, digits, . _ ~ -)',
    );
  }
  const credentials = options.credentials ?? DEFAULT_CREDENTIALS;
  if (!credentials.email || !credentials.password) {
    throw new RangeError('startSimulator: credentials need a non-empty email and password');
  }
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token === '')) {
    throw new RangeError('startSimulator: token must be a non-empty string');
  }
  const realism = options.realism ?? 'ideal';
  oneOf('realism', realism, REALISM_LEVELS);
  const preset = REALISM_PRESETS[realism];
  const cameraLatencyMs = msRange(
    'cameraLatencyMs',
    'min',
    'max',
    options.cameraLatencyMs === undefined ? preset.cameraLatencyMs : options.cameraLatencyMs,
  );
  const latePublication =
    options.latePublication === undefined ? preset.latePublication : options.latePublication;
  if (typeof latePublication !== 'object' || latePublication === null) {
    throw new RangeError(
      `startSimulator: latePublication must be an object { share, minMs, maxMs }, got ${JSON.stringify(latePublication)}`,
    );
  }
  const { share } = latePublication;
  if (typeof share !== 'number' || !Number.isFinite(share) || share < 0 || share > 1) {
    throw new RangeError(
      `startSimulator: latePublication.share must be a number from 0 to 1 (the share of live events published late), got ${String(share)}`,
    );
  }
  const lateRange = msRange('latePublication', 'minMs', 'maxMs', latePublication);
  const historyPageCap =
    options.historyPageCap === undefined ? preset.historyPageCap : options.historyPageCap;
  integer('historyPageCap', historyPageCap, 0, 1_000_000);
  const historyPageBytes =
    options.historyPageBytes === undefined ? preset.historyPageBytes : options.historyPageBytes;
  integer('historyPageBytes', historyPageBytes, 0, MAX_PAGE_BYTES);
  const numericTimestamps =
    options.numericTimestamps === undefined ? preset.numericTimestamps : options.numericTimestamps;
  if (typeof numericTimestamps !== 'boolean') {
    throw new RangeError(
      `startSimulator: numericTimestamps must be true or false, got ${JSON.stringify(numericTimestamps)}`,
    );
  }
  const responseLatencyMs = msRange(
    'responseLatencyMs',
    'min',
    'max',
    options.responseLatencyMs === undefined ? preset.responseLatencyMs : options.responseLatencyMs,
    MAX_RESPONSE_LATENCY_MS,
  );
  const mediaDelay = resolveMediaDelay(
    options.mediaDelay === undefined ? preset.mediaDelay : options.mediaDelay,
  );
  const historyTies = options.historyTies === undefined ? preset.historyTies : options.historyTies;
  oneOf('historyTies', historyTies, HISTORY_TIES);
  const historyLagMs = options.historyLagMs === undefined ? preset.historyLagMs : options.historyLagMs;
  integer('historyLagMs', historyLagMs, 0, MAX_DELAY_MS);
  const historyLagSpreadMs = options.historyLagSpreadMs ?? 0;
  integer('historyLagSpreadMs', historyLagSpreadMs, 0, MAX_DELAY_MS);
  const interleavedIds = options.interleavedIds ?? 0;
  integer('interleavedIds', interleavedIds, 0, 1_000_000);
  const upgradeDelayMs = options.upgradeDelayMs ?? 0;
  integer('upgradeDelayMs', upgradeDelayMs, 0, MAX_RESPONSE_LATENCY_MS);
  const media = options.media ?? 'unique';
  oneOf('media', media, EVENT_MEDIA);
  return {
    port,
    host: options.host ?? '127.0.0.1',
    prefix,
    form,
    seed: seed >>> 0,
    rate,
    overLimit,
    historyOrder,
    tokenLifetimeMs,
    loginRateLimit: { ...loginRateLimit },
    historySize,
    firstRecordId,
    historySpanMs,
    historyEndMs,
    historyTasks,
    serviceId,
    credentials: { ...credentials },
    token: options.token,
    pingIntervalMs,
    controlEndpoint: options.controlEndpoint ?? true,
    realism,
    cameraLatencyMs,
    latePublication: { share, minMs: lateRange.min, maxMs: lateRange.max },
    historyPageCap,
    historyPageBytes,
    numericTimestamps,
    responseLatencyMs,
    mediaDelay,
    snapshotFile: checkSnapshotFile(options.snapshotFile),
    historyTies,
    historyLagMs,
    historyLagSpreadMs,
    interleavedIds,
    upgradeDelayMs,
    media,
  };
}

function checkSnapshotFile(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/\.(jpe?g|png)$/i.test(value)) {
    throw new RangeError(
      `startSimulator: snapshotFile must be the path of a .jpg, .jpeg or .png file, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function resolveMediaDelay(value: unknown): MediaDelay {
  if (typeof value !== 'object' || value === null) {
    throw new RangeError(
      `startSimulator: mediaDelay must be an object { snapshotMs: { min, max }, clipMs: { min, max }, busyMs }, got ${JSON.stringify(value)}`,
    );
  }
  const given = value as Record<string, unknown>;
  const snapshotMs = msRange('mediaDelay.snapshotMs', 'min', 'max', given.snapshotMs);
  const clipMs = msRange('mediaDelay.clipMs', 'min', 'max', given.clipMs);
  integer('mediaDelay.busyMs', given.busyMs, 0, MAX_RESPONSE_LATENCY_MS);
  return { snapshotMs, clipMs, busyMs: given.busyMs as number };
}

/** Validates an object holding a millisecond range (at most `maxMs`) under the keys `low` and `high`. */
function msRange(
  name: string,
  low: string,
  high: string,
  value: unknown,
  maxMs = MAX_DELAY_MS,
): CameraLatency {
  if (typeof value !== 'object' || value === null) {
    throw new RangeError(
      `startSimulator: ${name} must be an object { ${low}, ${high} } in milliseconds, got ${JSON.stringify(value)}`,
    );
  }
  const range = value as Record<string, unknown>;
  integer(`${name}.${low}`, range[low], 0, maxMs);
  integer(`${name}.${high}`, range[high], 0, maxMs);
  const min = range[low] as number;
  const max = range[high] as number;
  if (max < min) {
    throw new RangeError(`startSimulator: ${name}.${high} must be >= ${name}.${low} (${min}), got ${max}`);
  }
  return { min, max };
}

/** A UUID-shaped service id that depends only on the seed, so demos can keep it. */
function defaultServiceId(seed: number): string {
  const hex = [1, 2, 3, 4]
    .map((n) =>
      hash2(seed, 0x5e1d + n)
        .toString(16)
        .padStart(8, '0'),
    )
    .join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function integer(name: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `startSimulator: ${name} must be an integer from ${min} to ${max}, got ${String(value)}`,
    );
  }
}

function oneOf(name: string, value: unknown, allowed: readonly string[]): void {
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new RangeError(
      `startSimulator: ${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
}
