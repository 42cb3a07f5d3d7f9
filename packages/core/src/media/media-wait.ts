import { HttpError } from '../errors/http-error.js';
import { MediaMissingError, type MediaName } from '../errors/media-missing-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { timestampMs } from '../normalize/read-timestamp.js';
import type { Clock } from '../ports.js';
import { describeValue } from '../validation/describe-value.js';

/**
 * How long a fresh event's media may take to appear. Real services publish an event before its
 * files are written: the snapshot within seconds, the clip only once the event's recording ended
 * and was written, so the clip's wait is longer.
 */
export const defaultMediaWaitMs = { snapshot: 10_000, clip: 120_000 } as const;
/** The longest media wait a caller may ask for (10 minutes). */
export const maxMediaWaitMs = 600_000;

/**
 * Answers a service gives while a file is being written: 404 (not there yet), 409/423/425 (being
 * written), 503 (busy, usually with Retry-After). Anything else will not change by waiting.
 */
const notYetStatuses = new Set([404, 409, 423, 425, 503]);
const firstRetryMs = 250;
const longestRetryMs = 1_000;

/** A media wait in ms (0 = no wait), checked: the field is named in the error. */
export function checkMediaWait(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > maxMediaWaitMs) {
    throw new ValidationError(
      field,
      describeValue(value),
      `a whole number of ms from 0 to ${maxMediaWaitMs}`,
    );
  }
  return value;
}

/**
 * When the event happened (ms), from a normalized event's `occurredAt` or a raw payload's
 * `timestamp`; undefined for a bare URL.
 */
export function eventTimeMs(source: unknown): number | undefined {
  if (source === null || typeof source !== 'object') return undefined;
  const record = source as { occurredAt?: unknown; timestamp?: unknown };
  if (record.occurredAt instanceof Date) return record.occurredAt.getTime();
  return timestampMs(record.timestamp);
}

export interface MediaWait {
  media: MediaName;
  url: string;
  /** 0: one attempt. */
  waitMs: number;
  /**
   * Since when the file is waited for (ms): the later of the event's time and when the host
   * received it. An event older than the wait is old: its 404 fails at once.
   */
  freshFromMs: number | undefined;
  clock: Clock;
  signal?: AbortSignal;
}

/**
 * Runs `attempt` until it succeeds, retrying the "not there yet" answers of a fresh event's file
 * with backoff (or the service's Retry-After) until `freshFrom + waitMs`. A bare URL (no event
 * time) counts as fresh from now. Other errors, and an abort, end at once.
 */
export async function untilMediaAppears<T>(wait: MediaWait, attempt: () => Promise<T>): Promise<T> {
  const started = wait.clock.now();
  const deadline = (wait.freshFromMs ?? started) + wait.waitMs;
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!HttpError.isInstance(error) || !notYetStatuses.has(error.status)) throw error;
      const now = wait.clock.now();
      const waitedMs = retry === 0 ? 0 : now - started;
      const pause = Math.min(
        error.retryAfterMs ?? Math.min(firstRetryMs * 2 ** retry, longestRetryMs),
        deadline - now,
      );
      if (pause <= 0) {
        throw new MediaMissingError({
          media: wait.media,
          url: wait.url,
          waitedMs,
          old: retry === 0 && wait.waitMs > 0,
          status: error.status,
          cause: error,
        });
      }
      await wait.clock.sleep(pause, wait.signal);
    }
  }
}
