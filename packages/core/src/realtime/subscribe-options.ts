import { ValidationError } from '../errors/validation-error.js';
import { type EventFilter, parseEventFilter } from '../filter/event-filter.js';
import { type ResolvedMediaOptions, resolveMediaOptions } from '../media/event-media.js';
import type { PositionStore } from '../ports.js';
import { describeValue } from '../validation/describe-value.js';
import type { SubscribeOptions } from './types.js';

/** Every option with its default applied; internal knobs (slice, dedupe size) included. */
export interface ResolvedOptions {
  /** Where the host keeps the position; undefined: nowhere (every start as the options say). */
  position: PositionStore | undefined;
  /** Keep what is handed over and not acknowledged in the position (`position.unfinished`). */
  unfinished: 'record' | 'rerun' | undefined;
  /** Read the stored position at the start; false: begin live and replace it. */
  resume: boolean;
  /** What an empty store means (`position.ifMissing`): a first start (live), or a lost position. */
  ifMissing: 'live' | 'look-back';
  lookBackMs: number;
  allowedLatenessMs: number;
  positionSaveMs: number;
  maxLookBackMs: number;
  overlapMs: number;
  historyLagMs: number;
  heartbeatMs: number;
  backoff: { baseMs: number; maxMs: number };
  taskRefreshMs: number;
  highWaterMark: number;
  overflow: 'pause' | 'drop-oldest';
  maxInFlight: number;
  /** Undefined when every event is wanted. */
  filter: EventFilter | undefined;
  /** The images each event is handed over with; undefined: none. */
  media: ResolvedMediaOptions | undefined;
  /** Events per batch and the longest wait for a batch to fill (with `onBatch`). */
  batch: { size: number; waitMs: number };
  /** Deadline and attempts of a handler's acknowledgement (see `SubscribeOptions.ack`). */
  ack: {
    deadlineMs: number;
    attempts: number;
    retry: boolean;
    retryLate: boolean;
    /** The pause before attempt 2, 3…; its length + 1 is `attempts`. Absent: at once. */
    retryPausesMs?: number[];
    /** Who handles the events in the reports; absent: the handler's name (`onEvent`, `onBatch`). */
    handlerLabel?: string;
  };
  /** At most one event per key every `ms`; undefined: no cooldown. */
  cooldown: { ms: number; per: 'camera' | 'task' | 'object' } | undefined;
  signal: AbortSignal | undefined;
  /** History windows read at the same time during a catch-up. */
  backfillConcurrency: number;
  /** Most remembered event keys per socket, whatever their age. */
  dedupeCapacity: number;
  /** A connection that stayed up this long resets the backoff. */
  stableAfterMs: number;
}

export const defaultOptions = {
  lookBackMs: 0,
  /**
   * Two minutes: vision-language-model answers are what publishes events late, and they come
   * seconds to a minute or two after the detection; per-camera analysis latency is far below it.
   */
  allowedLatenessMs: 120_000,
  positionSaveMs: 1_000,
  maxLookBackMs: 60 * 60_000,
  overlapMs: 2_000,
  /**
   * A search index makes a row searchable at its next refresh (every second by default), and a
   * read replica is usually well within that: a second and a half covers both with room.
   */
  historyLagMs: 1_500,
  heartbeatMs: 30_000,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  taskRefreshMs: 60_000,
  highWaterMark: 1_000,
  maxInFlight: 1,
  batchSize: 1,
  batchWaitMs: 1_000,
  backfillConcurrency: 3,
  dedupeCapacity: 100_000,
  /** Ten minutes: far beyond a flow's or an execution's usual work, short of a stream that stops for good. */
  ackDeadlineMs: 600_000,
  ackAttempts: 3,
} as const;

const knownOptions = new Set([
  'position',
  'lookBackMs',
  'allowedLatenessMs',
  'positionSaveMs',
  'maxLookBackMs',
  'overlapMs',
  'historyLagMs',
  'heartbeatMs',
  'backoff',
  'taskRefreshMs',
  'highWaterMark',
  'overflow',
  'maxInFlight',
  'filter',
  'batch',
  'media',
  'ack',
  'cooldown',
  'signal',
]);

/** Checks the caller's options (clear errors naming the option) and fills in defaults. */
export function resolveOptions(options: SubscribeOptions | undefined): ResolvedOptions {
  const given = (options ?? {}) as Record<string, unknown>;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new ValidationError('options', describeValue(options), 'an object of subscribe options');
  }
  // Checked first, as it was when media had a layer of its own: its errors come before the rest.
  const media = resolveMediaOptions(given.media);
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
  const batchGiven = given.batch as SubscribeOptions['batch'] | undefined;
  if (batchGiven !== undefined && (typeof batchGiven !== 'object' || batchGiven === null)) {
    throw new ValidationError('options.batch', describeValue(batchGiven), 'an object { size?, waitMs? }');
  }
  const filterGiven = given.filter as SubscribeOptions['filter'] | undefined;
  if (filterGiven !== undefined && (typeof filterGiven !== 'object' || filterGiven === null)) {
    throw new ValidationError(
      'options.filter',
      describeValue(filterGiven),
      'an object { eventNames?, objectNames?, minConfidence?, warningsOnly? }',
    );
  }
  const filter = filterGiven === undefined ? undefined : parseEventFilter(filterGiven);
  return {
    media,
    ...resolvePosition(given.position),
    lookBackMs: duration(given.lookBackMs, 'options.lookBackMs', defaultOptions.lookBackMs, 0),
    allowedLatenessMs: duration(
      given.allowedLatenessMs,
      'options.allowedLatenessMs',
      defaultOptions.allowedLatenessMs,
      0,
    ),
    positionSaveMs: duration(
      given.positionSaveMs,
      'options.positionSaveMs',
      defaultOptions.positionSaveMs,
      0,
    ),
    maxLookBackMs: duration(given.maxLookBackMs, 'options.maxLookBackMs', defaultOptions.maxLookBackMs, 1),
    overlapMs: duration(given.overlapMs, 'options.overlapMs', defaultOptions.overlapMs, 0),
    historyLagMs: duration(given.historyLagMs, 'options.historyLagMs', defaultOptions.historyLagMs, 0),
    heartbeatMs,
    backoff: { baseMs, maxMs },
    taskRefreshMs: duration(given.taskRefreshMs, 'options.taskRefreshMs', defaultOptions.taskRefreshMs, 10),
    highWaterMark: duration(given.highWaterMark, 'options.highWaterMark', defaultOptions.highWaterMark, 1),
    overflow,
    maxInFlight: wholeNumberInRange(
      given.maxInFlight,
      'options.maxInFlight',
      defaultOptions.maxInFlight,
      1,
      maxInFlightLimit,
    ),
    filter: filter && wantsSome(filter) ? filter : undefined,
    batch: {
      size: wholeNumberInRange(
        batchGiven?.size,
        'options.batch.size',
        defaultOptions.batchSize,
        1,
        maxBatchSize,
      ),
      waitMs: wholeNumberInRange(
        batchGiven?.waitMs,
        'options.batch.waitMs',
        defaultOptions.batchWaitMs,
        1,
        maxBatchWaitMs,
      ),
    },
    ack: resolveAck(given.ack),
    cooldown: resolveCooldown(given.cooldown),
    signal,
    backfillConcurrency: defaultOptions.backfillConcurrency,
    dedupeCapacity: defaultOptions.dedupeCapacity,
    stableAfterMs: Math.max(1_000, heartbeatMs),
  };
}

/** Events with the handler at once: beyond this a host should batch less or faster. */
export const maxInFlightLimit = 10_000;
/** Most events in one batch. */
export const maxBatchSize = 10_000;
/** Longest wait for a batch to fill: an hour. */
export const maxBatchWaitMs = 3_600_000;

/** Longest ack deadline: a day. */
export const maxAckDeadlineMs = 86_400_000;
/** Most attempts per event: a retry is for a passing failure, never a loop. */
export const maxAckAttempts = 10;

function resolveAck(value: unknown): ResolvedOptions['ack'] {
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new ValidationError(
      'options.ack',
      describeValue(value),
      'an object { deadlineMs?, attempts?, onFailure?, onLate?, retryPausesMs?, handlerLabel? }',
    );
  }
  const given = (value ?? {}) as NonNullable<SubscribeOptions['ack']>;
  const onFailure = given.onFailure ?? 'release';
  if (onFailure !== 'release' && onFailure !== 'retry') {
    throw new ValidationError('options.ack.onFailure', describeValue(onFailure), "'release' or 'retry'");
  }
  const onLate = given.onLate ?? onFailure;
  if (onLate !== 'release' && onLate !== 'retry') {
    throw new ValidationError('options.ack.onLate', describeValue(onLate), "'release' or 'retry'");
  }
  const attempts = wholeNumberInRange(
    given.attempts,
    'options.ack.attempts',
    defaultOptions.ackAttempts,
    1,
    maxAckAttempts,
  );
  const retryPausesMs = resolvePauses(given.retryPausesMs);
  const { handlerLabel } = given;
  if (
    handlerLabel !== undefined &&
    (typeof handlerLabel !== 'string' || handlerLabel.trim() === '' || handlerLabel.length > 40)
  ) {
    throw new ValidationError(
      'options.ack.handlerLabel',
      describeValue(handlerLabel),
      'a text of 1 to 40 characters',
    );
  }
  return {
    deadlineMs: wholeNumberInRange(
      given.deadlineMs,
      'options.ack.deadlineMs',
      defaultOptions.ackDeadlineMs,
      1,
      maxAckDeadlineMs,
    ),
    // The pauses say how many attempts follow the first: a separate count could contradict them.
    attempts: retryPausesMs ? 1 + retryPausesMs.length : attempts,
    retry: onFailure === 'retry',
    retryLate: onLate === 'retry',
    ...(retryPausesMs && { retryPausesMs }),
    ...(handlerLabel !== undefined && { handlerLabel }),
  };
}

/** Longest pause before an attempt: a day, as the deadline. */
export const maxRetryPauseMs = 86_400_000;

function resolvePauses(value: unknown): number[] | undefined {
  if (value === undefined) return undefined;
  const allowed = `a list of 1 to ${maxAckAttempts} whole numbers of ms, each from 0 to ${maxRetryPauseMs} (the pause before attempt 2, 3…)`;
  if (!Array.isArray(value) || value.length < 1 || value.length > maxAckAttempts) {
    throw new ValidationError('options.ack.retryPausesMs', describeValue(value), allowed);
  }
  value.forEach((pause: unknown, index) => {
    if (typeof pause !== 'number' || !Number.isSafeInteger(pause) || pause < 0 || pause > maxRetryPauseMs) {
      throw new ValidationError(`options.ack.retryPausesMs[${index}]`, describeValue(pause), allowed);
    }
  });
  // A copy: the caller's array may change after subscribe.
  return [...(value as number[])];
}

/** Shortest and longest cooldown: a second (less is noise, not a cooldown) and a day. */
export const minCooldownMs = 1_000;
export const maxCooldownMs = 86_400_000;

function resolveCooldown(value: unknown): ResolvedOptions['cooldown'] {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError(
      'options.cooldown',
      describeValue(value),
      "an object { ms, per: 'camera' | 'task' | 'object' }",
    );
  }
  const { ms, per } = value as Record<string, unknown>;
  if (ms === undefined) {
    throw new ValidationError(
      'options.cooldown.ms',
      describeValue(ms),
      `a whole number from ${minCooldownMs} to ${maxCooldownMs}`,
    );
  }
  const resolvedMs = wholeNumberInRange(ms, 'options.cooldown.ms', 0, minCooldownMs, maxCooldownMs);
  if (per !== 'camera' && per !== 'task' && per !== 'object') {
    throw new ValidationError('options.cooldown.per', describeValue(per), "'camera', 'task' or 'object'");
  }
  return { ms: resolvedMs, per };
}

/** A filter with no condition keeps every event: no need to look at them. */
function wantsSome(filter: EventFilter): boolean {
  return (
    filter.eventNames.length > 0 ||
    filter.objectNames.length > 0 ||
    filter.minConfidence !== undefined ||
    filter.warningsOnly
  );
}

function wholeNumberInRange(
  value: unknown,
  field: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ValidationError(field, describeValue(value), `a whole number from ${min} to ${max}`);
  }
  return value;
}

function duration(value: unknown, field: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ValidationError(field, describeValue(value), `a whole number of at least ${min}`);
  }
  return value;
}

const positionAllowed =
  'a position store { load(), save(position) }, or { store, resume, unfinished?, ifMissing? } (the host keeps the position)';

/** A bare store resumes; `{ store, resume: false }` writes the store without reading it. */
function resolvePosition(value: unknown): {
  position: PositionStore | undefined;
  resume: boolean;
  unfinished: ResolvedOptions['unfinished'];
  ifMissing: ResolvedOptions['ifMissing'];
} {
  if (value === undefined)
    return { position: undefined, resume: true, unfinished: undefined, ifMissing: 'live' };
  const given = value as {
    store?: unknown;
    resume?: unknown;
    unfinished?: unknown;
    ifMissing?: unknown;
  } | null;
  const wrapped = given !== null && typeof given === 'object' && 'store' in given;
  if (wrapped && typeof given.resume !== 'boolean')
    throw new ValidationError('options.position.resume', describeValue(given.resume), 'true or false');
  const unfinished = wrapped ? given.unfinished : undefined;
  if (unfinished !== undefined && unfinished !== 'record' && unfinished !== 'rerun')
    throw new ValidationError(
      'options.position.unfinished',
      describeValue(unfinished),
      "'record' or 'rerun'",
    );
  const ifMissing = (wrapped ? given.ifMissing : undefined) ?? 'live';
  if (ifMissing !== 'live' && ifMissing !== 'look-back')
    throw new ValidationError(
      'options.position.ifMissing',
      describeValue(ifMissing),
      "'live' or 'look-back'",
    );
  const store = (wrapped ? given.store : value) as Partial<PositionStore> | null;
  if (
    store === null ||
    typeof store !== 'object' ||
    typeof store.load !== 'function' ||
    typeof store.save !== 'function'
  ) {
    throw new ValidationError(
      wrapped ? 'options.position.store' : 'options.position',
      describeValue(store),
      positionAllowed,
    );
  }
  return {
    position: store as PositionStore,
    resume: wrapped ? (given.resume as boolean) : true,
    unfinished: unfinished as ResolvedOptions['unfinished'],
    ifMissing,
  };
}
