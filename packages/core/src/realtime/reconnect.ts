import { asError } from '../errors/as-error.js';
import { AuthError } from '../errors/auth-error.js';
import { HttpError } from '../errors/http-error.js';
import { backoffDelay } from './backoff.js';
import type { Connection } from './connection.js';
import type { RealtimeContext } from './context.js';
import { UpgradeFailure } from './socket-adapter.js';
import { streamTitle } from './stream-title.js';
import type { ResolvedOptions } from './subscribe-options.js';

/**
 * Keeps the connection open until it is stopped; resolves once no attempt or wait of it is left.
 * Never rejects: a bug is published as an `error` event.
 */
export function keepConnected(
  connection: Connection,
  context: RealtimeContext,
  options: ResolvedOptions,
): Promise<void> {
  return reconnectLoop(connection, context, options).catch((error: unknown) => {
    if (!connection.signal.aborted) connection.publish({ type: 'error', error: asError(error) });
  });
}

/**
 * Keeps a connection open for as long as it is wanted: connect, and after every drop reconnect
 * with capped backoff (one attempt at a time, never two sockets at once). A refused token is
 * renewed once through the client's shared renewal (so ten sockets refused at once cause one
 * login), never hammered; refusals that waiting cannot fix (auth, no such address) end it.
 */
async function reconnectLoop(
  connection: Connection,
  context: RealtimeContext,
  options: ResolvedOptions,
): Promise<void> {
  const { signal } = connection;
  const status = (next: 'connecting' | 'reconnecting', attempt: number, error: Error) =>
    connection.publish({ type: 'status', status: next, info: { attempt, error } });
  const wait = async (attempt: number): Promise<boolean> => {
    try {
      await context.clock.sleep(backoffDelay(attempt, options.backoff), signal);
      return !signal.aborted;
    } catch {
      return false;
    }
  };
  let attempt = 0;
  let rejected: string | undefined;
  let authRetried = false;
  let everOpened = false;
  while (!signal.aborted) {
    let token: string | undefined;
    try {
      token = await context.getToken({ ...(rejected === undefined ? {} : { rejected }), signal });
      rejected = undefined;
      await connection.open(token);
    } catch (error) {
      if (signal.aborted) return;
      const code = error instanceof UpgradeFailure ? error.status : undefined;
      if (code === 401 || code === 403 || AuthError.isInstance(error)) {
        if (code !== undefined && context.canRefreshToken && !authRetried && token !== undefined) {
          authRetried = true;
          rejected = token;
          continue;
        }
        connection.publish({
          type: 'failed',
          failure: { kind: 'auth', error: authError(connection, context, code, error) },
        });
        return;
      }
      if (code === 404) {
        connection.publish({
          type: 'failed',
          failure: { kind: 'not-found', error: upgradeError(connection, 404, error) },
        });
        return;
      }
      attempt++;
      status(
        everOpened ? 'reconnecting' : 'connecting',
        attempt,
        code === undefined ? asError(error) : upgradeError(connection, code, error),
      );
      if (!(await wait(attempt))) return;
      continue;
    }

    authRetried = false;
    // The observer learns of the socket first, so a catch-up it starts shows as such (not as a
    // moment of `open` before it).
    connection.publish({ type: 'opened', reconnect: everOpened });
    everOpened = true;
    connection.publish({ type: 'status', status: 'open', info: {} });

    const ended = await connection.ended();
    if (signal.aborted) return;
    if (ended.idle && !ended.failure) {
      // A socket that cannot ping went quiet: maybe dead, maybe just a stream with no events.
      // Reconnected at once, without a `reconnecting` state or an attempt (the connection logged
      // it at debug level); the catch-up covers the gap, and a reconnect that fails is reported.
      attempt = 0;
      continue;
    }
    // A healthy connection's drop deserves a quick return; one that accepts and drops before
    // saying anything does not, so a failing server is not hammered; nor does one dropped because
    // its catch-up failed.
    if (ended.healthy && !ended.failure) attempt = 0;
    attempt++;
    status('reconnecting', attempt, ended.failure ?? connection.lost(ended.why));
    if (!(await wait(attempt))) return;
  }
}

function authError(
  connection: Connection,
  context: RealtimeContext,
  status: number | undefined,
  cause: unknown,
): AuthError {
  if (AuthError.isInstance(cause)) return cause;
  const retried = context.canRefreshToken ? ' even after logging in again' : '';
  return new AuthError(
    `The service refused the realtime connection for ${streamTitle(connection.label)} with HTTP ${status}${retried}: the token is invalid or expired, or lacks access to this service`,
    { status, cause },
  );
}

function upgradeError(connection: Connection, status: number, cause: unknown): HttpError {
  // The URL carries the token; HttpError redacts it, and the label says which socket it was.
  return new HttpError({
    status,
    method: 'GET',
    url: connection.url('***'),
    reason: `realtime upgrade for ${streamTitle(connection.label)} refused`,
    cause,
  });
}
