import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { defaultOptions, resolveOptions } from './subscribe-options.js';

function refusal(options: unknown): ValidationError {
  try {
    resolveOptions(options as never);
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('resolveOptions', () => {
  it('fills defaults', () => {
    const options = resolveOptions(undefined);
    expect(options.highWaterMark).toBe(defaultOptions.highWaterMark);
    expect(options.overflow).toBe('pause');
    expect(options.backoff).toEqual({ baseMs: 500, maxMs: 30_000 });
    expect(options.since).toBeUndefined();
  });

  it('keeps valid values', () => {
    const controller = new AbortController();
    const options = resolveOptions({
      since: { time: '2024-05-01T08:00:00Z', id: 9 },
      heartbeatMs: 50,
      backoff: { baseMs: 5, maxMs: 20 },
      overflow: 'drop-oldest',
      highWaterMark: 10,
      signal: controller.signal,
    });
    expect(options.since).toEqual({
      cursor: { time: '2024-05-01T08:00:00Z', id: 9 },
      ms: Date.UTC(2024, 4, 1, 8),
    });
    expect(options.backoff).toEqual({ baseMs: 5, maxMs: 20 });
    expect(options.signal).toBe(controller.signal);
  });

  it.each([
    [{ highWaterMark: 0 }, 'options.highWaterMark'],
    [{ highWaterMark: 1.5 }, 'options.highWaterMark'],
    [{ heartbeatMs: '30s' }, 'options.heartbeatMs'],
    [{ overflow: 'block' }, 'options.overflow'],
    [{ backoff: { baseMs: 100, maxMs: 10 } }, 'options.backoff.maxMs'],
    [{ backoff: 5 }, 'options.backoff'],
    [{ since: { time: 'yesterday' } }, 'options.since.time'],
    [{ since: { time: '2024-05-01T08:00:00Z', id: -1 } }, 'options.since.id'],
    [{ signal: {} }, 'options.signal'],
    [{ hearbeatMs: 5 }, 'options.hearbeatMs'],
  ])('refuses %j naming %s', (options, parameter) => {
    expect(refusal(options).parameter).toBe(parameter);
  });
});
