import { type SubscribeOptions, ValidationError } from '@observation-service/core';

/** When an event counts as handled: as it is sent, or when the flow finished with its message. */
export type AckMode = 'sent' | 'done';
/** What becomes of an event that failed in the flow or was not done in time, after it was reported. */
export type AckTimeoutAction = 'retry' | 'release';

export interface AckSettings {
  mode: AckMode;
  timeoutMs: number;
  onTimeout: AckTimeoutAction;
  /** Deliveries of an event at most with `retry` (core's `ack.attempts`). */
  attempts: number;
  /** Events out in the flow and not finished, at most (core's `maxInFlight`). */
  maxInFlight: number;
  /**
   * With `retry`, "Run again after pauses": the pause before attempt 2, 3… (core's
   * `ack.retryPausesMs`, which then sets the attempts); undefined runs again at once, as before.
   */
  retryPausesMs?: number[];
}

/**
 * The editor's fields of the acknowledgement, as saved. The names are those of the first
 * version (whose "back to this node" they described), so saved flows keep their settings.
 */
export interface AckConfig {
  ackMode?: string;
  ackTimeout?: string | number;
  /** Not done in time or failed: `retry` or `release` (default, since "retry" can repeat work). */
  ackTimeoutAction?: string;
  /** Added later: flows saved before it get the default. */
  ackAttempts?: string | number;
  maxInFlight?: string | number;
  /**
   * Run again: `now` (at once, up to Attempts; flows saved before the field) or `pauses` (after
   * the pauses of `ackRetryPauses`).
   */
  ackRetry?: string;
  /** The pauses, e.g. `30s, 2m, 10m`: whole numbers with `s`, `m` or `h`. */
  ackRetryPauses?: string;
}

const DEFAULT_TIMEOUT_SECONDS = 60;
const DEFAULT_ATTEMPTS = 3;
/** Core's own bound on attempts. */
const MAX_ATTEMPTS = 10;
const DEFAULT_MAX_IN_FLIGHT = 10;
/** Core's own bound on `maxInFlight`. */
const MAX_IN_FLIGHT_LIMIT = 10_000;
/** A day: longer is a flow that will not come back, better released or retried sooner. */
const MAX_TIMEOUT_SECONDS = 86_400;
/** Pauses at most: with the first delivery, as many attempts as Attempts allows. */
const MAX_PAUSES = MAX_ATTEMPTS - 1;
/** A pause of a day at most (core's bound): the event keeps its slot and the position waits meanwhile. */
const MAX_PAUSE_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/** The acknowledgement settings from the editor fields; a bad value names the field by its label. */
export function ackSettings(config: AckConfig): AckSettings {
  const mode = config.ackMode ?? 'sent';
  if (mode !== 'sent' && mode !== 'done') {
    throw new ValidationError(
      'Handled',
      JSON.stringify(mode),
      '"sent" (when sent) or "done" (when the flow is done)',
    );
  }
  const action = config.ackTimeoutAction ?? 'release';
  if (action !== 'retry' && action !== 'release') {
    throw new ValidationError(
      'Failed or late',
      JSON.stringify(action),
      '"retry" (send again) or "release" (let it go)',
    );
  }
  const retry = config.ackRetry ?? 'now';
  if (retry !== 'now' && retry !== 'pauses') {
    throw new ValidationError(
      'ackRetry',
      JSON.stringify(retry),
      '"now" (at once, up to Attempts) or "pauses" (after the pauses given)',
    );
  }
  const pauses = action === 'retry' && retry === 'pauses' ? retryPauses(config.ackRetryPauses) : undefined;
  return {
    mode,
    onTimeout: action,
    ...(pauses ? { retryPausesMs: pauses } : {}),
    timeoutMs:
      wholeNumber(config.ackTimeout, 'Done within', DEFAULT_TIMEOUT_SECONDS, 1, MAX_TIMEOUT_SECONDS) * 1000,
    attempts: wholeNumber(config.ackAttempts, 'Attempts', DEFAULT_ATTEMPTS, 1, MAX_ATTEMPTS),
    maxInFlight: wholeNumber(config.maxInFlight, 'In flight', DEFAULT_MAX_IN_FLIGHT, 1, MAX_IN_FLIGHT_LIMIT),
  };
}

/** Core's acknowledgement policy for "when the flow is done": core keeps the deadline and the attempts. */
export function ackPolicy(settings: AckSettings): NonNullable<SubscribeOptions['ack']> {
  // The reports name the flow, not core's handler: "the flow did not finish event 8713 within 60 s".
  const policy = { deadlineMs: settings.timeoutMs, onFailure: settings.onTimeout, handlerLabel: 'the flow' };
  // The pauses set the attempts (one more than pauses); core takes one or the other.
  return settings.retryPausesMs
    ? { ...policy, retryPausesMs: settings.retryPausesMs }
    : { ...policy, attempts: settings.attempts };
}

/**
 * "Run again after pauses": `30s, 2m, 10m` in milliseconds. Whole numbers with a unit (`s`, `m`,
 * `h`), 1 s to 24 h each, 1 to 9 of them (10 deliveries at most, as Attempts). A bad list names
 * the field (by its config property, which the node turns into its label), what was given and
 * what is allowed.
 */
export function retryPauses(value: string | undefined): number[] {
  const text = String(value ?? '').trim();
  const parts = text === '' ? [] : text.split(/\s*,\s*/);
  const pauses = parts.map((part) => {
    const match = /^(\d+)\s*(s|m|h)$/i.exec(part);
    const ms = match
      ? Number(match[1]) * (UNIT_MS[(match[2] as string).toLowerCase()] as number)
      : Number.NaN;
    return ms >= 1000 && ms <= MAX_PAUSE_MS ? ms : Number.NaN;
  });
  if (pauses.length === 0 || pauses.length > MAX_PAUSES || pauses.some(Number.isNaN)) {
    throw new ValidationError(
      'ackRetryPauses',
      JSON.stringify(value ?? ''),
      `1 to ${MAX_PAUSES} pauses separated by commas, each a whole number with s, m or h from 1s to 24h (e.g. "30s, 2m, 10m")`,
    );
  }
  return pauses;
}

function wholeNumber(
  value: string | number | undefined,
  label: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new ValidationError(label, JSON.stringify(value), `a whole number from ${min} to ${max}`);
  }
  return number;
}

/**
 * How long a stop waits for what the flow is working on (Node-RED gives a closing node 15 s). A
 * message Node-RED dropped never finishes: the wait ends after a quarter of this without progress.
 */
export const closeDrainMs = 2_000;
