import { ValidationError } from '../errors/validation-error.js';
import type { TaskWatchStore } from '../ports.js';
import { describeValue } from '../validation/describe-value.js';
import { parseIdList } from '../validation/parse-id-list.js';
import type { TaskWatchHandlers, TaskWatchOptions } from './types.js';

/** Polling faster than once a second only loads the service: task statuses change on a human scale. */
export const minIntervalMs = 1_000;
export const maxIntervalMs = 86_400_000;
export const defaultIntervalMs = 30_000;

export interface ResolvedWatchOptions {
  intervalMs: number;
  taskIds: ReadonlySet<number> | undefined;
  emitInitial: boolean;
  signal: AbortSignal | undefined;
  store: TaskWatchStore | undefined;
}

/** Validates options and handlers; throws ValidationError naming the field. */
export function resolveWatchOptions(
  options: TaskWatchOptions | undefined,
  handlers: TaskWatchHandlers,
): ResolvedWatchOptions {
  if (handlers === null || typeof handlers !== 'object' || typeof handlers.onChange !== 'function') {
    throw new ValidationError(
      'handlers.onChange',
      describeValue(handlers?.onChange),
      'a function called with each task event',
    );
  }
  if (handlers.onError !== undefined && typeof handlers.onError !== 'function') {
    throw new ValidationError('handlers.onError', describeValue(handlers.onError), 'a function or nothing');
  }
  const opts = options ?? {};
  if (typeof opts !== 'object')
    throw new ValidationError('options', describeValue(opts), 'an object of watch options');
  const intervalMs = opts.intervalMs ?? defaultIntervalMs;
  if (
    typeof intervalMs !== 'number' ||
    !Number.isInteger(intervalMs) ||
    intervalMs < minIntervalMs ||
    intervalMs > maxIntervalMs
  ) {
    throw new ValidationError(
      'intervalMs',
      describeValue(intervalMs),
      `a whole number of milliseconds from ${minIntervalMs} to ${maxIntervalMs}`,
    );
  }
  if (opts.emitInitial !== undefined && typeof opts.emitInitial !== 'boolean') {
    throw new ValidationError('emitInitial', describeValue(opts.emitInitial), 'true or false');
  }
  const signal = opts.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new ValidationError('signal', describeValue(signal), 'an AbortSignal');
  }
  const store = opts.store;
  if (
    store !== undefined &&
    (store === null ||
      typeof store !== 'object' ||
      typeof store.load !== 'function' ||
      typeof store.save !== 'function')
  ) {
    throw new ValidationError(
      'store',
      describeValue(store),
      'an object with load() and save(state), or nothing',
    );
  }
  return {
    intervalMs,
    taskIds: opts.taskIds === undefined ? undefined : new Set(parseIdList(opts.taskIds, 'taskIds')),
    emitInitial: opts.emitInitial ?? false,
    signal,
    store,
  };
}
