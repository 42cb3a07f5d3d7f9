import type { Readable } from 'node:stream';
import type { DetectedObject } from './model/observation-event.js';

/**
 * The ports: what differs per host (HTTP, WebSocket, time, logging, where a subscription keeps its
 * position and a task watch its statuses, what draws on a snapshot), with what crosses them. Every
 * layer of core imports them from here; `client/` only picks the defaults (see host-defaults.ts).
 */
/** Where core writes diagnostics. Secrets are never passed to it. */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/** Time source and waiting, replaceable in tests and hosts. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Resolves once the event loop has run what was scheduled before the call, I/O callbacks
   * included: a request a transport writes on a later turn of its own is written by then. A
   * history read waits for it after asking for the next page and before it hands out the page in
   * hand, whose events the caller then works on without giving the loop a turn. Without it the
   * read does not wait (a clock whose sleeps a test advances by hand stays in control).
   */
  turn?(): Promise<void>;
}

/**
 * A WebSocket constructor: `ws` (the Node default) or a host's own, such as the runtime's WHATWG
 * `WebSocket`. The socket adapter accepts either shape.
 */
export type WebSocketConstructor = new (url: string, options?: Record<string, unknown>) => unknown;

/** One HTTP request as core hands it to a transport. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Absolute URL, query string included. */
  url: string;
  headers: Record<string, string>;
  /** Request body, already serialized (JSON for login). */
  body?: string;
  /** Aborts the request, including reading the body. Core combines caller aborts and timeouts here. */
  signal: AbortSignal;
}

/** The answer of a transport. Exactly one of the body readers is called, once. */
export interface HttpResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  text(): Promise<string>;
  bytes(): Promise<Uint8Array>;
  /** The body as a stream (media downloads). */
  stream(): Readable;
  /** Throws the body away so the connection can be reused. */
  discard(): Promise<void>;
}

/**
 * The HTTP port. The default is undici with keep-alive; a host (e.g. n8n) may plug in its own.
 * A transport rejects only when no HTTP answer arrived (network, TLS, abort); every status,
 * including 4xx/5xx, resolves.
 */
export interface HttpTransport {
  request(request: HttpRequest): Promise<HttpResponse>;
  /** Releases pooled connections. Called by `client.close()`. */
  close?(): Promise<void>;
}

/**
 * Asks REST whether the service refuses `token` (the one a socket offered; the current token when
 * none is given): its status (401/403), or undefined. For sockets that hide the upgrade's status
 * (the runtime's WebSocket).
 */
export type RefusalProbe = (token?: string) => Promise<number | undefined>;

/**
 * Where the host keeps a subscription's position. `load` is called once when the subscription
 * starts; `save` whenever the position moved past events the host acknowledged (at most every
 * `positionSaveMs`, never two at once: a save that returns a promise is awaited before the next)
 * and once more when the subscription closes.
 */
export interface PositionStore {
  load(): unknown | Promise<unknown>;
  save(position: StoredPosition): void | Promise<void>;
}

/**
 * The durable position of a subscription, as a host stores it (n8n workflow static data,
 * Node-RED context): plain JSON, versioned, opaque to the host. Per socket it says where the
 * catch-up after a restart starts and which events after that point were already delivered, which
 * is what exactly-once after a restart needs (a timestamp alone is not: events arrive out of
 * order and late). realtime/position.ts reads and writes it.
 */
export interface StoredPosition {
  format: 'observation-position';
  version: 1;
  /** Which service and task selection it belongs to (a hash: no address, no secret). */
  scope: string;
  /** When it was taken (ISO time). */
  savedAt: string;
  /** One entry per socket: `extended`, or `task <id>` in the basic form. */
  streams: Record<string, StreamPosition>;
  /**
   * The service refused a first start (its credentials or address) before any socket opened.
   * Nothing was owed yet: the next start, once the setting is fixed, begins live as a new
   * subscription does instead of replaying from when the refused one began.
   */
  neverConnected?: true;
  /**
   * With `position.unfinished`: the events (or batches) handed over and not acknowledged when it
   * was saved, by key (`EventBatch.key`), with the attempt they were on and when it began (ISO
   * time). A resumed start hands them over with the next attempt. `finished`: it finished on that
   * attempt after the streams were last saved, and comes again (if caught up again) on that attempt.
   */
  unfinished?: Record<string, { attempt: number; at: string; finished?: true }>;
  /**
   * With the `cooldown` option: per key (`camera:12`), the events that passed last (their time,
   * `eventIdentity` and the held count their passing reset) and the events held since. A corrupt
   * one resets only the cooldown; earlier versions ignore it.
   */
  cooldown?: StoredCooldown;
}

/** The stored state of a subscription's `cooldown` (see `StoredPosition.cooldown`). */
export type StoredCooldown = Record<
  string,
  { passes: Array<{ at: string; id: string; heldBack: number }>; held: number }
>;

export interface StreamPosition {
  /** ISO time the catch-up starts at. */
  from: string;
  /** ISO time of the newest delivered event. */
  newest?: string;
  /** Delivered record ids at or after `from` (extended form), single ids and [first, last] runs. */
  ids?: Array<number | [number, number]>;
  /** Delivered content keys at or after `from` (basic form). */
  keys?: string[];
}

/**
 * Where the host keeps a task watch's state (the same shape as `PositionStore`). `load` is called
 * once, before the first poll; `save` after a poll that changed what the watch knows, once that
 * poll's events were handled (a crash in between reports them again: repeated, never lost). A
 * rejected or throwing `save` is reported once through `onError`.
 */
export interface TaskWatchStore {
  load(): unknown | Promise<unknown>;
  save(state: StoredTaskWatch): void | Promise<void>;
}

/**
 * What a task watch keeps between runs, as a host stores it (Node-RED context or a file, n8n
 * static data): plain JSON, versioned, opaque to the host. It is the last known status of every
 * watched task, so that a change made while the host was stopped is reported at the next start.
 * task-watch/stored-state.ts reads and writes it.
 */
export interface StoredTaskWatch {
  format: 'observation-task-watch';
  version: 1;
  /** Which service it belongs to (a hash: no address, no secret). */
  scope: string;
  /** The tasks the watch was set to watch: `all`, or their ids. */
  selection: 'all' | number[];
  /** When it was taken (ISO time). */
  savedAt: string;
  tasks: StoredTask[];
}

/**
 * A task as the watch last saw it. `camera_rtsp` is never stored (it may carry the camera's
 * credentials), nor fields a deployment adds of its own.
 */
export interface StoredTask {
  id: number;
  name: string;
  status: string;
  scheduler?: string;
  events?: number[];
  location_id?: number;
  camera_id?: number;
}

/**
 * Something that draws objects on a snapshot: core's `annotateSnapshot` on this thread, or a host's
 * (e.g. the same in a worker thread, so the event loop stays free while a 1080p JPEG is drawn).
 */
export type Annotator = (
  image: Uint8Array,
  objects: readonly DetectedObject[],
  options: AnnotateOptions,
) => Promise<AnnotatedSnapshot>;

/** How `annotateSnapshot` draws and encodes. Every field is optional. */
export interface AnnotateOptions {
  /** Output format. Default: the input's format. `'jpg'` is accepted as `'jpeg'`. */
  format?: 'png' | 'jpeg' | 'jpg';
  /** Outline thickness of ordinary boxes in pixels (1–64); warning boxes are drawn half again as thick. Default: 1 px per 180 px of the shorter image side, at least 2 (2 at 360p, 6 at 1080p). */
  lineWidth?: number;
  /** JPEG quality, 1–100. Default 85. Ignored for PNG. */
  quality?: number;
  /** Draw a label (object name and confidence in %) at each box. Default true. */
  labels?: boolean;
  /** Label text size: 1 = 5×7-pixel glyphs (1–16). Default: 1 per 270 px of the shorter image side (1 at 360p, 4 at 1080p). */
  fontScale?: number;
  /** Box and label colours as `#rrggbb`. Defaults: `#FACC15` (amber) and, for warning objects, `#FF1744` (red). */
  colors?: { box?: string; warning?: string };
  /** Refuse larger images (width × height) before decoding their pixels. Default 40,000,000. */
  maxPixels?: number;
  /** Scale the result down to at most this many pixels wide, keeping its shape (16–8192), e.g. for thumbnails. Default: full size. */
  maxWidth?: number;
  /** Stem of the returned file name (an extension is replaced). Default `snapshot`; the client method uses the downloaded file's name. */
  fileName?: string;
}

/** An annotated snapshot, ready to save, attach or send. */
export interface AnnotatedSnapshot {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  /** `<stem>-annotated.png` or `.jpg`. */
  fileName: string;
  /** Objects drawn: those with a usable box at least partly inside the image. */
  drawn: number;
}

const noop = (): void => undefined;

/** Fills the methods a partial host logger lacks with no-ops. */
export function completeLogger(logger: Partial<Logger> | undefined): Logger {
  return {
    debug: logger?.debug?.bind(logger) ?? noop,
    info: logger?.info?.bind(logger) ?? noop,
    warn: logger?.warn?.bind(logger) ?? noop,
    error: logger?.error?.bind(logger) ?? noop,
  };
}

/**
 * The reason to cancel a clock's sleep whose rejection nobody reads (a request's deadline met, a
 * batch filled before its wait was up): one frozen value for all. Aborting without a reason makes
 * a DOMException, with its stack, each time (about 12 µs, paid by every request and every batch).
 */
export const sleepNotNeeded = Object.freeze({ reason: 'the wait was no longer needed' });

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}
