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
  return {
    mode,
    onTimeout: action,
    timeoutMs:
      wholeNumber(config.ackTimeout, 'Done within', DEFAULT_TIMEOUT_SECONDS, 1, MAX_TIMEOUT_SECONDS) * 1000,
    attempts: wholeNumber(config.ackAttempts, 'Attempts', DEFAULT_ATTEMPTS, 1, MAX_ATTEMPTS),
    maxInFlight: wholeNumber(config.maxInFlight, 'In flight', DEFAULT_MAX_IN_FLIGHT, 1, MAX_IN_FLIGHT_LIMIT),
  };
}

/** Core's acknowledgement policy for "when the flow is done": core keeps the deadline and the attempts. */
export function ackPolicy(settings: AckSettings): NonNullable<SubscribeOptions['ack']> {
  return { deadlineMs: settings.timeoutMs, attempts: settings.attempts, onFailure: settings.onTimeout };
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
