import { AuthError } from '../errors/auth-error.js';
import { HttpError } from '../errors/http-error.js';
import { ObservationError } from '../errors/observation-error.js';
import { backoffDelay } from './backoff.js';
import type { RealtimeContext } from './context.js';
import { type Heartbeat, startHeartbeat } from './heartbeat.js';
import { openSocket, type RealtimeSocket, UpgradeFailure } from './socket-adapter.js';
import type { ResolvedOptions } from './subscribe-options.js';
import type { StateChangeInfo } from './types.js';

/** Life of one socket (one per subscription in the extended form, one per task in the basic form). */
export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting';

/** Refusals that waiting cannot fix: the subscription decides (fail, or fall back to basic). */
export type ConnectionFailure = { kind: 'auth'; error: AuthError } | { kind: 'not-found'; error: HttpError };

/** What a connection publishes. It calls these and waits for none of them. */
export interface ConnectionListener {
  status(status: ConnectionStatus, info: StateChangeInfo): void;
  /** A socket is open; frames may already have arrived. `reconnect` after an earlier socket. */
  opened(reconnect: boolean): void;
  frame(data: unknown): void;
  /** The socket is gone (before a reconnect, or for good). */
  closed(): void;
  failed(failure: ConnectionFailure): void;
  report(error: Error): void;
}

/**
 * One socket kept alive for as long as it is wanted: connect, watch with a heartbeat, and after
 * every drop reconnect with capped backoff (one attempt at a time, never two sockets at once). A
 * refused token is renewed once through the client's shared renewal (so ten sockets refused at
 * once cause one login), never hammered. It owns only the socket: what the frames mean, and
 * whether a catch-up is needed, is for its listener; `drop` is how the listener asks for a new
 * socket (a catch-up that failed).
 */
export class Connection {
  status: ConnectionStatus = 'connecting';
  private readonly controller = new AbortController();
  private socket: RealtimeSocket | undefined;
  private heartbeat: Heartbeat | undefined;
  private readonly pauseReasons = new Set<string>();
  private socketPaused = false;
  private running: Promise<void> | undefined;
  private dropReason: string | undefined;
  /** Why the listener dropped the socket: that drop is a failure, so the backoff is not reset. */
  private dropError: Error | undefined;
  /** Messages the current socket received: a connection that carried some was a healthy one. */
  private framesSinceOpen = 0;

  constructor(
    private readonly context: RealtimeContext,
    private readonly options: ResolvedOptions,
    readonly label: string,
    private readonly url: (token: string) => string,
    private readonly listener: ConnectionListener,
  ) {}

  start(): void {
    this.running ??= this.run().catch((error: unknown) => {
      // Only a bug gets here; report it rather than leaving an unhandled rejection.
      if (!this.controller.signal.aborted) this.listener.report(asError(error));
    });
  }

  /** Stops for good: resolves when the socket is closed and no timer of it is left. */
  async stop(): Promise<void> {
    if (!this.controller.signal.aborted) this.controller.abort();
    this.heartbeat?.stop();
    this.socket?.terminate();
    await this.running;
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

  private setStatus(status: ConnectionStatus, info: StateChangeInfo): void {
    if (this.controller.signal.aborted) return;
    this.status = status;
    this.listener.status(status, info);
  }

  private async run(): Promise<void> {
    const { context, options, listener } = this;
    const signal = this.controller.signal;
    let attempt = 0;
    let rejected: string | undefined;
    let authRetried = false;
    let everOpened = false;
    while (!signal.aborted) {
      let socket: RealtimeSocket;
      let token: string | undefined;
      try {
        token = await context.getToken({ ...(rejected === undefined ? {} : { rejected }), signal });
        rejected = undefined;
        socket = await openSocket(context.WebSocket, this.url(token), this.socketListeners, signal);
      } catch (error) {
        if (signal.aborted) return;
        const status = error instanceof UpgradeFailure ? error.status : undefined;
        if (status === 401 || status === 403 || AuthError.isInstance(error)) {
          if (status !== undefined && context.canRefreshToken && !authRetried && token !== undefined) {
            authRetried = true;
            rejected = token;
            continue;
          }
          listener.failed({ kind: 'auth', error: this.authError(status, error) });
          return;
        }
        if (status === 404) {
          listener.failed({ kind: 'not-found', error: this.upgradeHttpError(404, error) });
          return;
        }
        attempt++;
        const cause = status === undefined ? asError(error) : this.upgradeHttpError(status, error);
        this.setStatus(everOpened ? 'reconnecting' : 'connecting', { attempt, error: cause });
        if (!(await this.wait(backoffDelay(attempt, options.backoff)))) return;
        continue;
      }

      authRetried = false;
      this.socket = socket;
      this.dropReason = undefined;
      this.dropError = undefined;
      const openedAt = context.clock.now();
      this.framesSinceOpen = 0;
      this.heartbeat = startHeartbeat({
        intervalMs: options.heartbeatMs,
        canPing: socket.canPing,
        ping: () => socket.ping(),
        clock: context.clock,
        isPaused: () => this.socketPaused,
        onDead: (reason) => {
          this.dropReason = `heartbeat: ${reason}`;
          context.logger.debug('realtime connection is half-open, reconnecting', {
            stream: this.label,
            reason,
          });
          socket.terminate();
        },
      });
      // Reasons collected while no socket was there apply now.
      this.socketPaused = false;
      if (this.pauseReasons.size > 0) {
        this.socketPaused = true;
        if (socket.canPause) socket.pause();
      }
      // The listener learns of the socket first, so a catch-up it starts shows as such (not as a
      // moment of `open` before it).
      listener.opened(everOpened);
      everOpened = true;
      this.setStatus('open', {});

      const closed = await this.teardown(socket);
      if (signal.aborted) return;
      const failure = this.dropError;
      // A connection that held for a while, or carried messages, resets the backoff: the service
      // was healthy, and this drop (a proxy's idle timeout, a rolling restart) is a new incident
      // that deserves a quick return. One that accepts and drops before saying anything does not,
      // so a failing server is not hammered; nor does one dropped because its catch-up failed.
      const healthy = this.framesSinceOpen > 0 || context.clock.now() - openedAt >= options.stableAfterMs;
      if (healthy && !failure) attempt = 0;
      attempt++;
      const why =
        this.dropReason ?? `closed with code ${closed.code}${closed.reason ? ` (${closed.reason})` : ''}`;
      this.setStatus('reconnecting', {
        attempt,
        error:
          failure ??
          new ObservationError('CONNECTION_LOST', `Realtime connection for ${this.label} lost: ${why}`),
      });
      if (!(await this.wait(backoffDelay(attempt, options.backoff)))) return;
    }
  }

  private readonly socketListeners = {
    onMessage: (data: unknown): void => {
      this.framesSinceOpen++;
      this.heartbeat?.activity();
      this.listener.frame(data);
    },
    onPong: (): void => this.heartbeat?.activity(),
  };

  /** Waits for the socket to close, then forgets it and its heartbeat. */
  private async teardown(socket: RealtimeSocket) {
    const closed = await socket.closed;
    this.heartbeat?.stop();
    this.heartbeat = undefined;
    this.socket = undefined;
    this.socketPaused = false;
    this.listener.closed();
    return closed;
  }

  /** Backoff pause; false when the connection was stopped meanwhile. */
  private async wait(ms: number): Promise<boolean> {
    try {
      await this.context.clock.sleep(ms, this.controller.signal);
      return !this.controller.signal.aborted;
    } catch {
      return false;
    }
  }

  private authError(status: number | undefined, cause: unknown): AuthError {
    if (AuthError.isInstance(cause)) return cause;
    const retried = this.context.canRefreshToken ? ' even after logging in again' : '';
    return new AuthError(
      `The service refused the realtime connection for ${this.label} with HTTP ${status}${retried}: the token is invalid or expired, or lacks access to this service`,
      { status, cause },
    );
  }

  private upgradeHttpError(status: number, cause: unknown): HttpError {
    // The URL carries the token; HttpError redacts it, and the label says which socket it was.
    return new HttpError({
      status,
      method: 'GET',
      url: this.url('***'),
      reason: `realtime upgrade for ${this.label} refused`,
      cause,
    });
  }
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
