import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import type { TaskWatchHandlers, TaskWatchOptions } from './types.js';
import { resolveWatchOptions } from './watch-options.js';

const handlers: TaskWatchHandlers = { onChange: () => undefined };

function refused(options: unknown, h: unknown = handlers): ValidationError {
  try {
    resolveWatchOptions(options as TaskWatchOptions, h as TaskWatchHandlers);
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('task watch options', () => {
  it('defaults to a 30 s interval, every task, no initial report', () => {
    expect(resolveWatchOptions(undefined, handlers)).toEqual({
      intervalMs: 30_000,
      taskIds: undefined,
      emitInitial: false,
      signal: undefined,
      store: undefined,
    });
    expect(resolveWatchOptions({ taskIds: '3, 1', intervalMs: 1000 }, handlers).taskIds).toEqual(
      new Set([1, 3]),
    );
  });

  it('refuses bad values, naming the field and what is allowed', () => {
    expect(refused({ intervalMs: 999 }).message).toBe(
      'Invalid intervalMs: got number 999; expected a whole number of milliseconds from 1000 to 86400000',
    );
    expect(refused({ intervalMs: '5000' }).parameter).toBe('intervalMs');
    expect(refused({ intervalMs: 1500.5 }).parameter).toBe('intervalMs');
    expect(refused({ taskIds: 'a,b' }).parameter).toBe('taskIds[0]');
    expect(refused({ taskIds: [] }).parameter).toBe('taskIds');
    expect(refused({ emitInitial: 'yes' }).parameter).toBe('emitInitial');
    expect(refused({ signal: {} }).parameter).toBe('signal');
    expect(refused({ store: { load() {} } }).message).toBe(
      'Invalid store: got an object; expected an object with load() and save(state), or nothing',
    );
    expect(refused({ store: null }).parameter).toBe('store');
    expect(refused(42).parameter).toBe('options');
    expect(refused({}, {}).parameter).toBe('handlers.onChange');
    expect(refused({}, null).parameter).toBe('handlers.onChange');
    expect(refused({}, { onChange() {}, onError: 1 }).parameter).toBe('handlers.onError');
  });
});
