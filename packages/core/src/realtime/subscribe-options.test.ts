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
    expect(options.position).toBeUndefined();
    expect(options.lookBackMs).toBe(0);
    expect(options.allowedLatenessMs).toBe(120_000);
    expect(options.maxInFlight).toBe(1);
  });

  it('maxInFlight: keeps 1..10000, refuses the rest naming the option, the value and the range', () => {
    expect(resolveOptions({ maxInFlight: 1 }).maxInFlight).toBe(1);
    expect(resolveOptions({ maxInFlight: 10_000 }).maxInFlight).toBe(10_000);
    for (const given of [0, 10_001, 2.5, '10', -1]) {
      const error = refusal({ maxInFlight: given });
      expect(error.parameter).toBe('options.maxInFlight');
      expect(error.message).toContain('options.maxInFlight');
      expect(error.message).toContain(String(given));
      expect(error.allowed).toBe('a whole number from 1 to 10000');
    }
  });

  it('ack: defaults to a 10-minute deadline, 3 attempts and release; refuses bad values naming the option', () => {
    expect(resolveOptions(undefined).ack).toEqual({
      deadlineMs: 600_000,
      attempts: 3,
      retry: false,
      retryLate: false,
    });
    expect(resolveOptions({ ack: { deadlineMs: 5, attempts: 10, onFailure: 'retry' } }).ack).toEqual({
      deadlineMs: 5,
      attempts: 10,
      retry: true,
      retryLate: true,
    });
    expect(resolveOptions({ ack: { onFailure: 'retry', onLate: 'release' } }).ack).toMatchObject({
      retry: true,
      retryLate: false,
    });
    const cases: Array<[unknown, string, string]> = [
      [
        'soon',
        'options.ack',
        'an object { deadlineMs?, attempts?, onFailure?, onLate?, retryPausesMs?, handlerLabel? }',
      ],
      [{ handlerLabel: '' }, 'options.ack.handlerLabel', 'a text of 1 to 40 characters'],
      [{ handlerLabel: 'x'.repeat(41) }, 'options.ack.handlerLabel', 'a text of 1 to 40 characters'],
      [{ handlerLabel: 3 }, 'options.ack.handlerLabel', 'a text of 1 to 40 characters'],
      [{ deadlineMs: 0 }, 'options.ack.deadlineMs', 'a whole number from 1 to 86400000'],
      [{ deadlineMs: 86_400_001 }, 'options.ack.deadlineMs', 'a whole number from 1 to 86400000'],
      [{ attempts: 0 }, 'options.ack.attempts', 'a whole number from 1 to 10'],
      [{ attempts: 11 }, 'options.ack.attempts', 'a whole number from 1 to 10'],
      [{ attempts: 2.5 }, 'options.ack.attempts', 'a whole number from 1 to 10'],
      [{ onFailure: 'forever' }, 'options.ack.onFailure', "'release' or 'retry'"],
      [{ onLate: 'wait' }, 'options.ack.onLate', "'release' or 'retry'"],
    ];
    for (const [ack, parameter, allowed] of cases) {
      const error = refusal({ ack });
      expect(error.parameter).toBe(parameter);
      expect(error.allowed).toBe(allowed);
      expect(error.message).toContain(parameter);
    }
  });

  it('ack.retryPausesMs: 1 to 10 whole numbers of 0..86400000; the attempts are one more than the pauses', () => {
    expect(
      resolveOptions({ ack: { onFailure: 'retry', retryPausesMs: [30_000, 0, 86_400_000] } }).ack,
    ).toEqual({
      deadlineMs: 600_000,
      attempts: 4,
      retry: true,
      retryLate: true,
      retryPausesMs: [30_000, 0, 86_400_000],
    });
    // The pauses replace a count given beside them.
    expect(resolveOptions({ ack: { attempts: 10, retryPausesMs: [5] } }).ack.attempts).toBe(2);
    const allowed =
      'a list of 1 to 10 whole numbers of ms, each from 0 to 86400000 (the pause before attempt 2, 3…)';
    const cases: Array<[unknown, string, string]> = [
      [[], 'options.ack.retryPausesMs', 'an array of 0'],
      [new Array(11).fill(1), 'options.ack.retryPausesMs', 'an array of 11'],
      ['30s', 'options.ack.retryPausesMs', '"30s"'],
      [[1, -1], 'options.ack.retryPausesMs[1]', 'number -1'],
      [[86_400_001], 'options.ack.retryPausesMs[0]', 'number 86400001'],
      [[1.5], 'options.ack.retryPausesMs[0]', 'number 1.5'],
      [['5'], 'options.ack.retryPausesMs[0]', '"5"'],
    ];
    for (const [retryPausesMs, parameter, given] of cases) {
      const error = refusal({ ack: { onFailure: 'retry', retryPausesMs } });
      expect(error.parameter).toBe(parameter);
      expect(error.given).toBe(given);
      expect(error.allowed).toBe(allowed);
      expect(error.message).toContain(parameter);
    }
  });

  it('cooldown: ms 1000..86400000 and per camera, task or object; refusals name the field', () => {
    expect(resolveOptions(undefined).cooldown).toBeUndefined();
    expect(resolveOptions({ cooldown: { ms: 60_000, per: 'camera' } }).cooldown).toEqual({
      ms: 60_000,
      per: 'camera',
    });
    const cases: Array<[unknown, string, string]> = [
      [5, 'options.cooldown', "an object { ms, per: 'camera' | 'task' | 'object' }"],
      [{ per: 'task' }, 'options.cooldown.ms', 'a whole number from 1000 to 86400000'],
      [{ ms: 999, per: 'task' }, 'options.cooldown.ms', 'a whole number from 1000 to 86400000'],
      [{ ms: 86_400_001, per: 'task' }, 'options.cooldown.ms', 'a whole number from 1000 to 86400000'],
      [{ ms: 1_500.5, per: 'task' }, 'options.cooldown.ms', 'a whole number from 1000 to 86400000'],
      [{ ms: 60_000 }, 'options.cooldown.per', "'camera', 'task' or 'object'"],
      [{ ms: 60_000, per: 'location' }, 'options.cooldown.per', "'camera', 'task' or 'object'"],
    ];
    for (const [cooldown, parameter, allowed] of cases) {
      const error = refusal({ cooldown });
      expect(error.parameter).toBe(parameter);
      expect(error.allowed).toBe(allowed);
      expect(error.message).toContain(parameter);
    }
  });

  it('keeps valid values', () => {
    const controller = new AbortController();
    const store = { load: () => undefined, save: () => undefined };
    const options = resolveOptions({
      position: store,
      allowedLatenessMs: 30_000,
      lookBackMs: 60_000,
      heartbeatMs: 50,
      backoff: { baseMs: 5, maxMs: 20 },
      overflow: 'drop-oldest',
      highWaterMark: 10,
      signal: controller.signal,
    });
    expect(options.position).toBe(store);
    expect(options.allowedLatenessMs).toBe(30_000);
    expect(options.lookBackMs).toBe(60_000);
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
    [{ position: { time: '2024-05-01T08:00:00Z' } }, 'options.position'],
    [{ position: { load: () => undefined } }, 'options.position'],
    [
      {
        position: {
          store: { load: (): undefined => undefined, save: (): undefined => undefined },
          resume: true,
          unfinished: 'all',
        },
      },
      'options.position.unfinished',
    ],
    [
      {
        position: {
          store: { load: (): undefined => undefined, save: (): undefined => undefined },
          resume: true,
          ifMissing: 'replay',
        },
      },
      'options.position.ifMissing',
    ],
    [{ allowedLatenessMs: -1 }, 'options.allowedLatenessMs'],
    [{ lookBackMs: 1.5 }, 'options.lookBackMs'],
    [{ since: { time: '2024-05-01T08:00:00Z' } }, 'options.since'],
    [{ signal: {} }, 'options.signal'],
    [{ hearbeatMs: 5 }, 'options.hearbeatMs'],
  ])('refuses %j naming %s', (options, parameter) => {
    expect(refusal(options).parameter).toBe(parameter);
  });
});
