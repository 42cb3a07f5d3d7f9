import type { AuthError } from '../errors/auth-error.js';
import type { HttpError } from '../errors/http-error.js';
import { ObservationError } from '../errors/observation-error.js';
import type { RealtimeContext } from './context.js';
import { type Heartbeat, startHeartbeat } from './heartbeat.js';
import { openSocket, type RealtimeSocket } from './socket-adapter.js';
import { streamTitle } from './stream-title.js';
import type { ResolvedOptions } from './subscribe-options.js';
import type { StateChangeInfo } from './types.js';

/** Life of one socket (one per subscription in the extended form, one per task in the basic form). */
export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting';

/** Refusals that waiting cannot fix: the subscription decides (fail, or fall back to basic). */
export type ConnectionFailure = { kind: 'auth'; error: AuthError } | { kind: 'not-found'; error: HttpError };

/**
 * Everything a connection tells its observer, as one union (the way trpc's WsConnection publishes
 * one observable). It waits for none of them.
 */
export type ConnectionEvent =
  | { type: 'status'; status: ConnectionStatus; info: StateChangeInfo }
  /** A socket is open; frames may already have arrived. `reconnect` after an earlier socket. */
  | { type: 'opened'; reconnect: boolean }
  | { type: 'frame'; data: unknown }
  /** The socket is gone (before a reconnect, or for good). */
  | { type: 'closed' }
  | { type: 'failed'; failure: ConnectionFailure }
  /** A bug in the connection itself, reported rather than left unhandled. */
  | { type: 'error'; error: Error };

/** How one socket ended: what the reconnect part needs to choose its backoff and say why. */
export interface SocketEnded {
  /** It carried messages or held for `stableAfterMs`: the service was healthy. */
  healthy: boolean;
  /** Why the subscription dropped it (a failed catch-up), if it did. */
  failure: Error | undefined;
  why: string;
  /**
   * Dropped by the idle watchdog of a socket that cannot ping (a WHATWG WebSocket): no frame for
   * a heartbeat interval, which a quiet stream meets as well as a dead one. Reconnected at once
   * and quietly; only a reconnect that then fails is news.
   */
  idle: boolean;
}

/**
 * One socket at a time and its heartbeat: opens it, watches it, publishes what it carries, and
 * stops or resumes reading it for backpressure. When to open the next socket after a drop (the
 * backoff, renewing a refused token) is `keepConnected`'s. What the frames
 * mean, and whether a catch-up is needed, is for the observer; `drop` is how it asks for a new
 * socket (a catch-up that failed).
 */
export class Connection {
  status: ConnectionStatus = 'connecting';
  /** Aborted by `stop`: every wait of the connection and of its reconnect part ends. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private observer: (event: ConnectionEvent) => void = () => undefined;
  private socket: RealtimeSocket | undefined;
  private heartbeat: Heartbeat | undefined;
  private readonly pauseReasons = new Set<string>();
  private socketPaused = false;
  private dropReason: string | undefined;
  /** The idle watchdog dropped the current socket (see SocketEnded.idle). */
  private droppedIdle = false;
  /** Why the observer dropped the socket: that drop is a failure, so the backoff is not reset. */
  private dropError: Error | undefined;
  /** Messages the current socket received: a connection that carried some was a healthy one. */
  private framesSinceOpen = 0;
  private openedAt = 0;

  constructor(
    private readonly context: RealtimeContext,
    private readonly options: ResolvedOptions,
    readonly label: string,
    readonly url: (token: string) => string,
  ) {
    this.signal = this.controller.signal;
  }

  /** The one observer (the subscription); returns how to stop observing. */
  subscribe(observer: (event: ConnectionEvent) => void): () => void {
    this.observer = observer;
    return () => {
      if (this.observer === observer) this.observer = () => undefined;
    };
  }

  publish(event: ConnectionEvent): void {
    if (event.type === 'status') {
      if (this.signal.aborted) return;
      this.status = event.status;
    }
    this.observer(event);
  }

  /** Stops for good: the socket is torn down, the heartbeat stopped, every wait ends. */
  stop(): void {
    if (!this.signal.aborted) this.controller.abort();
    this.heartbeat?.stop();
    this.socket?.terminate();
  }

  /** Closes the current socket and reconnects after a backoff; `error` is reported as the cause. */
  drop(error: Error): void {
    if (!this.socket) return;
    this.dropError = error;
    this.socket.terminate();
  }

  /** Stops or resumes reading the socket for one reason (queue full, catch-up buffer full). */
  setPaused(reason: string, paused: boolean): void {
    if (paused) this.pauseReasons.add(reason);
    else this.pauseReasons.delete(reason);
    const socket = this.socket;
    if (!socket?.canPause) return;
    const shouldPause = this.pauseReasons.size > 0;
    if (shouldPause === this.socketPaused) return;
    this.socketPaused = shouldPause;
    if (shouldPause) socket.pause();
    else socket.resume();
  }

  /** Opens a socket with `token` and starts watching it; rejects as `openSocket` does. */
  async open(token: string): Promise<void> {
    const socket = await openSocket(
      this.context.WebSocket,
      this.url(token),
      this.socketListeners,
      this.signal,
    );
    this.socket = socket;
    this.dropReason = undefined;
    this.droppedIdle = false;
    this.dropError = undefined;
    this.openedAt = this.context.clock.now();
    this.framesSinceOpen = 0;
    this.heartbeat = startHeartbeat({
      intervalMs: this.options.heartbeatMs,
      canPing: socket.canPing,
      ping: () => socket.ping(),
      clock: this.context.clock,
      isPaused: () => this.socketPaused,
      onDead: (reason, idle) => {
        this.dropReason = `heartbeat: ${reason}`;
        this.droppedIdle = idle;
        this.context.logger.debug(
          idle
            ? 'realtime connection quiet for a heartbeat interval (this socket cannot ping), reconnecting to check it'
            : 'realtime connection is half-open, reconnecting',
          { stream: this.label, reason },
        );
        socket.terminate();
      },
    });
    // Reasons collected while no socket was there apply now.
    this.socketPaused = false;
    if (this.pauseReasons.size > 0) {
      this.socketPaused = true;
      if (socket.canPause) socket.pause();
    }
  }

  /** Waits for the open socket to close, then forgets it and its heartbeat. */
  async ended(): Promise<SocketEnded> {
    const socket = this.socket as RealtimeSocket;
    const closed = await socket.closed;
    this.heartbeat?.stop();
    this.heartbeat = undefined;
    this.socket = undefined;
    this.socketPaused = false;
    this.publish({ type: 'closed' });
    // A connection that held for a while, or carried messages, was a healthy one: its drop (a
    // proxy's idle timeout, a rolling restart) is a new incident, not a failing server.
    const healthy =
      this.framesSinceOpen > 0 || this.context.clock.now() - this.openedAt >= this.options.stableAfterMs;
    const why =
      this.dropReason ?? `closed with code ${closed.code}${closed.reason ? ` (${closed.reason})` : ''}`;
    return { healthy, failure: this.dropError, why, idle: this.droppedIdle };
  }

  /** The error a drop is reported with, when the observer gave none. */
  lost(why: string): Error {
    return new ObservationError(
      'CONNECTION_LOST',
      `Realtime connection for ${streamTitle(this.label)} lost: ${why}`,
    );
  }

  /**
   * The one frame event, its `data` set for each frame: the observer handles a frame before
   * `publish` returns and keeps nothing of the event, so a live frame costs no object here.
   */
  private readonly frame: { type: 'frame'; data: unknown } = { type: 'frame', data: undefined };

  private readonly socketListeners = {
    onMessage: (data: unknown): void => {
      this.framesSinceOpen++;
      this.heartbeat?.activity();
      const frame = this.frame;
      frame.data = data;
      this.observer(frame);
      frame.data = undefined;
    },
    onPong: (): void => this.heartbeat?.activity(),
  };
}
