import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from '../validation/describe-value.js';
import { parseIsoTime } from '../validation/iso-time.js';
import type { SubscribeOptions, SubscriptionCursor } from './types.js';

/** Every option with its default applied; internal knobs (slice, dedupe size) included. */
export interface ResolvedOptions {
  since: { cursor: SubscriptionCursor; ms: number } | undefined;
  maxLookBackMs: number;
  overlapMs: number;
  heartbeatMs: number;
  backoff: { baseMs: number; maxMs: number };
  taskRefreshMs: number;
  highWaterMark: number;
  overflow: 'pause' | 'drop-oldest';
  signal: AbortSignal | undefined;
  /** Backfill reads history in windows of this length, so memory follows the window, not the outage. */
  backfillSliceMs: number;
  /** History windows read at the same time during a catch-up. */
  backfillConcurrency: number;
  /** Most remembered event keys per socket, whatever their age. */
  dedupeCapacity: number;
  /** A connection that stayed up this long resets the backoff. */
  stableAfterMs: number;
}

export const defaultOptions = {
  maxLookBackMs: 60 * 60_000,
  overlapMs: 2_000,
  heartbeatMs: 30_000,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  taskRefreshMs: 60_000,
  highWaterMark: 1_000,
  backfillSliceMs: 5_000,
  backfillConcurrency: 3,
  dedupeCapacity: 100_000,
} as const;

const knownOptions = new Set([
  'since',
  'maxLookBackMs',
  'overlapMs',
  'heartbeatMs',
  'backoff',
  'taskRefreshMs',
  'highWaterMark',
  'overflow',
  'signal',
]);

/** Checks the caller's options (clear errors naming the option) and fills in defaults. */
export function resolveOptions(options: SubscribeOptions | undefined): ResolvedOptions {
  const given = (options ?? {}) as Record<string, unknown>;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new ValidationError('options', describeValue(options), 'an object of subscribe options');
  }
  for (const name of Object.keys(given)) {
    if (!knownOptions.has(name) && given[name] !== undefined) {
      throw new ValidationError(`options.${name}`, 'an unknown option', [...knownOptions].join(', '));
    }
  }
  const backoffGiven = given.backoff as SubscribeOptions['backoff'] | undefined;
  if (backoffGiven !== undefined && (typeof backoffGiven !== 'object' || backoffGiven === null)) {
    throw new ValidationError(
      'options.backoff',
      describeValue(backoffGiven),
      'an object { baseMs?, maxMs? }',
    );
  }
  const baseMs = duration(backoffGiven?.baseMs, 'options.backoff.baseMs', defaultOptions.backoffBaseMs, 1);
  const maxMs = duration(
    backoffGiven?.maxMs,
    'options.backoff.maxMs',
    Math.max(baseMs, defaultOptions.backoffMaxMs),
    1,
  );
  if (maxMs < baseMs) {
    throw new ValidationError(
      'options.backoff.maxMs',
      `number ${maxMs}`,
      `at least backoff.baseMs (${baseMs})`,
    );
  }
  const overflow = given.overflow ?? 'pause';
  if (overflow !== 'pause' && overflow !== 'drop-oldest') {
    throw new ValidationError('options.overflow', describeValue(overflow), "'pause' or 'drop-oldest'");
  }
  const signal = given.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new ValidationError('options.signal', describeValue(signal), 'an AbortSignal');
  }
  const heartbeatMs = duration(given.heartbeatMs, 'options.heartbeatMs', defaultOptions.heartbeatMs, 10);
  return {
    since: resolveSince(given.since),
    maxLookBackMs: duration(given.maxLookBackMs, 'options.maxLookBackMs', defaultOptions.maxLookBackMs, 1),
    overlapMs: duration(given.overlapMs, 'options.overlapMs', defaultOptions.overlapMs, 0),
    heartbeatMs,
    backoff: { baseMs, maxMs },
    taskRefreshMs: duration(given.taskRefreshMs, 'options.taskRefreshMs', defaultOptions.taskRefreshMs, 10),
    highWaterMark: duration(given.highWaterMark, 'options.highWaterMark', defaultOptions.highWaterMark, 1),
    overflow,
    signal,
    backfillSliceMs: defaultOptions.backfillSliceMs,
    backfillConcurrency: defaultOptions.backfillConcurrency,
    dedupeCapacity: defaultOptions.dedupeCapacity,
    stableAfterMs: Math.max(1_000, heartbeatMs),
  };
}

function duration(value: unknown, field: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ValidationError(field, describeValue(value), `a whole number of at least ${min}`);
  }
  return value;
}

function resolveSince(value: unknown): ResolvedOptions['since'] {
  if (value === undefined) return undefined;
  const allowed =
    "a cursor { time: 'YYYY-MM-DDThh:mm:ssZ', id?: positive whole number } from subscription.cursor";
  if (typeof value !== 'object' || value === null) {
    throw new ValidationError('options.since', describeValue(value), allowed);
  }
  const { time, id } = value as { time?: unknown; id?: unknown };
  const date = typeof time === 'string' ? parseIsoTime(time) : time instanceof Date ? time : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new ValidationError('options.since.time', describeValue(time), allowed);
  }
  if (id !== undefined && (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)) {
    throw new ValidationError('options.since.id', describeValue(id), allowed);
  }
  const cursor: SubscriptionCursor = { time: typeof time === 'string' ? time : date.toISOString() };
  if (id !== undefined) cursor.id = id;
  return { cursor, ms: date.getTime() };
}
