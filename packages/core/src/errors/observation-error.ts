/**
 * Marker symbols are registered globally (`Symbol.for`) so `isInstance` recognises errors thrown by
 * another loaded copy of this package: n8n and Node-RED hosts do end up with duplicates, and
 * `instanceof` fails across copies.
 */
const marker = 'observation-service.core.error';
const symbol = Symbol.for(marker);

/**
 * Every code core emits, stable between versions (a host may switch on them). Thrown by calls:
 * - `HTTP_ERROR`: the service answered with an error status (HttpError: status, redacted url, body).
 * - `AUTH_ERROR`: the token or login was refused (AuthError), also the final error of a subscription.
 * - `VALIDATION_ERROR`: a parameter is not what is allowed (ValidationError: which, given, allowed).
 * - `NETWORK_ERROR`, `TIMEOUT_ERROR`: the service could not be reached, or did not answer in time.
 * - `PROTOCOL_ERROR`: the service sent something that is not what the interface says (a malformed
 *   event is reported with it, never thrown at the stream).
 * - `CLIENT_CLOSED`: the client was closed before or during the call.
 * - `SUBSCRIPTION_CLOSED`: `pause`, `resume` or `retarget` of a subscription already closed.
 * - `MEDIA_MISSING`: an event's snapshot or clip was not there within the media wait, or an old
 *   event's was not there at all (MediaMissingError: media, redacted url, waitedMs, status). Also
 *   reported through `onError` by a subscription that prepares media (the event still goes out).
 * Reported by a subscription through `onError` (the stream goes on):
 * - `CONNECTION_LOST`: a socket dropped; core reconnects (also the `reconnecting` state's error).
 * - `BACKFILL_FAILED`: a catch-up from history failed; core reconnects and tries again.
 * - `BACKFILL_TRUNCATED`: a catch-up was cut at `maxLookBackMs`; older events are not fetched.
 * - `DEDUPE_CAPACITY`: more events within the allowed lateness than the dedupe memory holds.
 * - `HANDLER_ERROR`: the host's `onEvent` or `onBatch` threw or rejected (once per event); it is
 *   released or delivered again, as the `ack` option says.
 * - `HANDLER_TIMEOUT`: the handler's promise did not settle within `ack.deadlineMs` (once per
 *   event); it is released or delivered again, as the `ack` option says.
 * - `HANDLER_GAVE_UP`: an event (or batch) whose handler failed was let go without success, after
 *   its last attempt or at once under `ack.onFailure` `release` (once per unit; `onGiveUp` has it).
 * - `TASK_LIST_FAILED`: the basic form's task list could not be read; retried.
 * - `TASK_NOT_FOUND`: a task id of an explicit selection is not in the service's task list (once).
 * - `POSITION_RESET`: the stored position could not be used; the look-back is used instead.
 * - `POSITION_MIGRATED`: an earlier version's stored cursor was read and replaced.
 * - `POSITION_SAVE_FAILED`: the host's store refused the position (reported once).
 * Reported by a task watch through `onError` (the watch goes on):
 * - `TASK_WATCH_STATE_RESET`: the stored state could not be read or used (corrupt, another service); a fresh baseline is taken.
 * - `TASK_WATCH_STATE_SAVE_FAILED`: the host's store refused the state (reported once).
 * Final error of a subscription (`failed` state):
 * - `REALTIME_NOT_FOUND`: the service has no realtime address for this form or task.
 */
export const observationErrorCodes = [
  'HTTP_ERROR',
  'AUTH_ERROR',
  'VALIDATION_ERROR',
  'NETWORK_ERROR',
  'TIMEOUT_ERROR',
  'PROTOCOL_ERROR',
  'CLIENT_CLOSED',
  'SUBSCRIPTION_CLOSED',
  'MEDIA_MISSING',
  'CONNECTION_LOST',
  'BACKFILL_FAILED',
  'BACKFILL_TRUNCATED',
  'DEDUPE_CAPACITY',
  'HANDLER_ERROR',
  'HANDLER_TIMEOUT',
  'HANDLER_GAVE_UP',
  'TASK_LIST_FAILED',
  'TASK_NOT_FOUND',
  'POSITION_RESET',
  'POSITION_MIGRATED',
  'POSITION_SAVE_FAILED',
  'REALTIME_NOT_FOUND',
  'TASK_WATCH_STATE_RESET',
  'TASK_WATCH_STATE_SAVE_FAILED',
] as const;

export type ObservationErrorCode = (typeof observationErrorCodes)[number];

export interface ObservationErrorOptions {
  cause?: unknown;
  /** The events a handler report (`HANDLER_ERROR`, `HANDLER_TIMEOUT`, `HANDLER_GAVE_UP`) is about. */
  eventIds?: readonly number[];
}

/** Base of every error thrown by the Observation Service client. */
export class ObservationError extends Error {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through Symbol.for() in isInstance
  private readonly [symbol] = true;
  readonly code: ObservationErrorCode;
  /**
   * The record ids of the events a handler report is about (those that have one), so a host can
   * say where they wait without reading the message; absent on other errors.
   */
  readonly eventIds?: readonly number[];

  constructor(code: ObservationErrorCode, message: string, options?: ObservationErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ObservationError';
    this.code = code;
    if (options?.eventIds !== undefined) this.eventIds = options.eventIds;
  }

  /** True for errors of this package, including errors created by another loaded copy of it. */
  static isInstance(error: unknown): error is ObservationError {
    return ObservationError.hasMarker(error, marker);
  }

  protected static hasMarker(error: unknown, markerName: string): boolean {
    const markerSymbol = Symbol.for(markerName);
    return (
      error != null &&
      typeof error === 'object' &&
      markerSymbol in error &&
      (error as Record<symbol, unknown>)[markerSymbol] === true
    );
  }
}
