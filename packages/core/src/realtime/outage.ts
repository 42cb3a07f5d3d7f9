import { AuthError } from '../errors/auth-error.js';
import { HttpError } from '../errors/http-error.js';
import { ObservationError } from '../errors/observation-error.js';
import type { Clock } from '../ports.js';
import type {
  Outage,
  StateChangeInfo,
  SubscriptionHandlers,
  SubscriptionState,
  SubscriptionStatus,
} from './types.js';

/** A system code of a socket error (`ECONNREFUSED`, `ENOTFOUND`). */
function systemCode(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^E[A-Z_]+$/.test(code) ? code : undefined;
}

/**
 * The error in the chain that says why: a refusal of the credentials, an HTTP answer or a socket
 * error (core wraps what failed, e.g. `TASK_LIST_FAILED` around the HTTP error).
 */
function rootOf(error: Error): Error {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (AuthError.isInstance(current) || HttpError.isInstance(current) || systemCode(current)) return current;
    current = current.cause ?? (current as { errors?: unknown[] }).errors?.[0];
  }
  return error;
}

/** Longest `short` reason: what a status ring holds. */
const maxShort = 40;

/** The few words a status ring shows: `HTTP 404`, the system code, else the message's start. */
function shortOf(root: Error): string {
  if (HttpError.isInstance(root)) return `HTTP ${root.status}`;
  const code = systemCode(root);
  if (code) return code;
  if (AuthError.isInstance(root)) return 'credentials refused';
  return root.message.length > maxShort ? `${root.message.slice(0, maxShort - 1)}…` : root.message;
}

/** Why the error took the stream down, in words a user can act on. */
export function outageOf(error: Error): Outage {
  const root = rootOf(error);
  const detail = root.message;
  return { ...classify(root, detail, error), short: shortOf(root) };
}

function classify(root: Error, detail: string, error: Error): Omit<Outage, 'short'> {
  if (AuthError.isInstance(root)) {
    return { reason: 'credentials', text: 'the service refused the credentials', detail, error };
  }
  if (HttpError.isInstance(root)) {
    const { status } = root;
    if (status === 401)
      return { reason: 'credentials', text: 'the service refused the credentials (HTTP 401)', detail, error };
    if (status === 403)
      return {
        reason: 'forbidden',
        text: 'the service refused access (HTTP 403): check the service id',
        detail,
        error,
      };
    if (status === 404)
      return { reason: 'not-found', text: 'no Observation API at this address (HTTP 404)', detail, error };
    return { reason: 'service-error', text: `the service answered HTTP ${status}`, detail, error };
  }
  const code = systemCode(root);
  if (code) return { reason: 'unreachable', text: `cannot reach the service (${code})`, detail, error };
  if (ObservationError.isInstance(root) && /^(NETWORK|TIMEOUT)/.test(root.code)) {
    return { reason: 'unreachable', text: 'cannot reach the service', detail, error };
  }
  // A socket that closed or failed without a system code (the runtime WebSocket gives none).
  if (/\bcode 10\d\d\b|connection (lost|failed)|socket hang up/i.test(root.message)) {
    return { reason: 'unreachable', text: 'cannot reach the service', detail, error };
  }
  return { reason: 'other', text: root.message, detail, error };
}

/**
 * The host's handlers with outages told once: the first state that says the stream is down (a
 * failed connect or reconnect with its error, or a task list that cannot be read; not the drop
 * of a socket that had been open, most of which are back at the first reconnect) calls
 * `onOutage`; the first `open` after it calls `onRecovered`. Retries in between call neither:
 * connects still reach `onStateChange` (with their attempt) for a host that shows them; a task list
 * that cannot be read reaches `onError` only where the host has no `onOutage`. A pause or a close
 * ends an outage without a recovery. `onStatus` hears what to show, derived here from the same
 * states and outages, so no host works it out for itself.
 */
export function withOutages(handlers: SubscriptionHandlers, clock: Clock): SubscriptionHandlers {
  if (!handlers.onOutage && !handlers.onRecovered && !handlers.onStatus) return handlers;
  let down: { outage: Outage; since: number } | undefined;
  let everOpen = false;
  let status: SubscriptionStatus = { state: 'connecting' };
  const wentDown = (error: Error) => {
    if (down) return;
    down = { outage: outageOf(error), since: clock.now() };
    handlers.onOutage?.(down.outage);
  };
  /** An outage that began before the stream was ever open: nothing has worked yet. */
  const neverConnected = () => (down !== undefined && !everOpen ? down.outage : undefined);
  const onStateChange = (state: SubscriptionState, info: StateChangeInfo) => {
    // A socket that dropped is not an outage: a reconnect that fails is (most drops are back at once).
    const dropped = ObservationError.isInstance(info.error) && info.error.code === 'CONNECTION_LOST';
    // `failed` is told by onError as the stream's end (a refused token): an outage is a wait.
    if ((state === 'connecting' || state === 'reconnecting') && info.error && !dropped) {
      wentDown(info.error);
    } else if (state === 'open' && down) {
      const recovery = { reason: down.outage.reason, downMs: clock.now() - down.since };
      down = undefined;
      handlers.onRecovered?.(recovery);
    } else if (state === 'paused' || state === 'closed') down = undefined;
    if (state === 'open') everOpen = true;
    status = statusOf(state, info.attempt, info.error, neverConnected());
    handlers.onStatus?.(status);
    handlers.onStateChange?.(state, info);
  };
  const onError = (error: Error) => {
    if (ObservationError.isInstance(error) && error.code === 'TASK_LIST_FAILED') {
      const first = down === undefined;
      wentDown(error);
      // The state stays as it was (connecting): what to show beside it changed.
      const outage = neverConnected();
      if (first && outage) {
        status = statusOf(status.state, status.attempt, undefined, outage);
        if (status.cannotConnect !== undefined) handlers.onStatus?.(status);
      }
      // A host that shows outages hears of the task list there, as of a connect that fails: once,
      // not at every retry (each adapter filtered these out of its error reports itself).
      if (handlers.onOutage) return;
    }
    handlers.onError?.(error);
  };
  return { ...handlers, onStateChange, onError };
}

/** What to show for a state; `outage`: one that began before the stream was ever open. */
function statusOf(
  state: SubscriptionState,
  attempt: number | undefined,
  error: Error | undefined,
  outage: Outage | undefined,
): SubscriptionStatus {
  const status: SubscriptionStatus = { state };
  const retrying = state === 'connecting' || state === 'reconnecting';
  if (retrying && attempt !== undefined) {
    status.attempt = attempt;
    if (error) status.retryingAfter = error.message;
  }
  if (outage && retrying) status.cannotConnect = outage.short;
  if (state === 'failed' && error) {
    status.failure = error;
    if (outageOf(error).reason === 'credentials') status.credentialsRefused = true;
  }
  return status;
}
