import { describe, expect, it } from 'vitest';
import { resolveOptions, type SimulatorOptions } from './options.js';
import { REALISM_PRESETS } from './realism.js';
import { startSimulator } from './simulator.js';

const realismOf = (options: SimulatorOptions) => {
  const {
    realism,
    cameraLatencyMs,
    latePublication,
    historyPageCap,
    historyPageBytes,
    numericTimestamps,
    responseLatencyMs,
    mediaDelay,
    historyTies,
    historyLagMs,
  } = resolveOptions(options);
  return {
    realism,
    cameraLatencyMs,
    latePublication,
    historyPageCap,
    historyPageBytes,
    numericTimestamps,
    responseLatencyMs,
    mediaDelay,
    historyTies,
    historyLagMs,
  };
};

const MEDIA_OFF = { snapshotMs: { min: 0, max: 0 }, clipMs: { min: 0, max: 0 }, busyMs: 0 };

describe('realism presets', () => {
  it("default to 'ideal': every deployment behaviour off, so existing tests keep their meaning", () => {
    expect(realismOf({})).toEqual({
      realism: 'ideal',
      cameraLatencyMs: { min: 0, max: 0 },
      latePublication: { share: 0, minMs: 0, maxMs: 0 },
      historyPageCap: 0,
      historyPageBytes: 0,
      numericTimestamps: false,
      responseLatencyMs: { min: 0, max: 0 },
      mediaDelay: MEDIA_OFF,
      historyTies: 'id',
      historyLagMs: 0,
    });
  });

  it('resolve to the documented values', () => {
    expect(realismOf({ realism: 'mild' })).toEqual({
      realism: 'mild',
      cameraLatencyMs: { min: 200, max: 1500 },
      latePublication: { share: 0.02, minMs: 5000, maxMs: 30_000 },
      historyPageCap: 50,
      historyPageBytes: 0,
      numericTimestamps: false,
      responseLatencyMs: { min: 5, max: 40 },
      mediaDelay: { snapshotMs: { min: 500, max: 2000 }, clipMs: { min: 6000, max: 25_000 }, busyMs: 0 },
      historyTies: 'id',
      historyLagMs: 0,
    });
    expect(realismOf({ realism: 'messy' })).toEqual({
      realism: 'messy',
      cameraLatencyMs: { min: 0, max: 5000 },
      latePublication: { share: 0.05, minMs: 5000, maxMs: 120_000 },
      historyPageCap: 37,
      historyPageBytes: 16_384,
      numericTimestamps: true,
      responseLatencyMs: { min: 20, max: 250 },
      mediaDelay: { snapshotMs: { min: 500, max: 8000 }, clipMs: { min: 6000, max: 40_000 }, busyMs: 1500 },
      historyTies: 'per-request',
      historyLagMs: 1000,
    });
  });

  it('explicit options override the preset one by one, including turning one off', () => {
    expect(
      realismOf({
        realism: 'messy',
        cameraLatencyMs: { min: 0, max: 0 },
        historyPageCap: 0,
        historyPageBytes: 0,
        numericTimestamps: false,
        responseLatencyMs: { min: 0, max: 0 },
        mediaDelay: MEDIA_OFF,
        historyTies: 'id',
      }),
    ).toEqual({
      realism: 'messy',
      cameraLatencyMs: { min: 0, max: 0 },
      latePublication: { share: 0.05, minMs: 5000, maxMs: 120_000 },
      historyPageCap: 0,
      historyPageBytes: 0,
      numericTimestamps: false,
      responseLatencyMs: { min: 0, max: 0 },
      mediaDelay: MEDIA_OFF,
      historyTies: 'id',
      historyLagMs: 1000,
    });
    expect(realismOf({ realism: 'messy', historyLagMs: 0 })).toMatchObject({
      historyTies: 'per-request',
      historyLagMs: 0,
    });
    expect(
      realismOf({ realism: 'ideal', latePublication: { share: 1, minMs: 10, maxMs: 20 } }),
    ).toMatchObject({
      latePublication: { share: 1, minMs: 10, maxMs: 20 },
      historyPageCap: 0,
    });
    expect(realismOf({ realism: 'ideal', responseLatencyMs: { min: 100, max: 100 } })).toMatchObject({
      responseLatencyMs: { min: 100, max: 100 },
      cameraLatencyMs: { min: 0, max: 0 },
    });
    expect(realismOf({ realism: 'mild', responseLatencyMs: { min: 300, max: 900 } })).toMatchObject({
      responseLatencyMs: { min: 300, max: 900 },
      historyPageCap: 50,
    });
  });

  it('cannot be changed through the exported preset table', () => {
    expect(() => {
      (REALISM_PRESETS as Record<string, unknown>).mild = {};
    }).toThrow(TypeError);
    expect(realismOf({ realism: 'mild' }).historyPageCap).toBe(50);
    expect(() => {
      (REALISM_PRESETS.messy.responseLatencyMs as { max: number }).max = 0;
    }).toThrow(TypeError);
    expect(realismOf({ realism: 'messy' }).responseLatencyMs).toEqual({ min: 20, max: 250 });
    expect(() => {
      (REALISM_PRESETS.mild.mediaDelay.snapshotMs as { max: number }).max = 0;
    }).toThrow(TypeError);
    expect(realismOf({ realism: 'mild' }).mediaDelay.snapshotMs).toEqual({ min: 500, max: 2000 });
  });
});

describe('realism option validation', () => {
  it.each<[SimulatorOptions, string]>([
    [
      { realism: 'chaotic' as never },
      'startSimulator: realism must be one of ideal, mild, messy, got "chaotic"',
    ],
    [
      { cameraLatencyMs: 500 as never },
      'startSimulator: cameraLatencyMs must be an object { min, max } in milliseconds, got 500',
    ],
    [
      { cameraLatencyMs: { min: -1, max: 10 } },
      'startSimulator: cameraLatencyMs.min must be an integer from 0 to 86400000, got -1',
    ],
    [
      { cameraLatencyMs: { min: 0, max: 1.5 } },
      'startSimulator: cameraLatencyMs.max must be an integer from 0 to 86400000, got 1.5',
    ],
    [
      { cameraLatencyMs: { min: 900, max: 100 } },
      'startSimulator: cameraLatencyMs.max must be >= cameraLatencyMs.min (900), got 100',
    ],
    [
      { latePublication: null as never },
      'startSimulator: latePublication must be an object { share, minMs, maxMs }, got null',
    ],
    [
      { latePublication: { share: 5, minMs: 0, maxMs: 10 } },
      'startSimulator: latePublication.share must be a number from 0 to 1 (the share of live events published late), got 5',
    ],
    [
      { latePublication: { share: 0.1, minMs: 0, maxMs: 100_000_000 } },
      'startSimulator: latePublication.maxMs must be an integer from 0 to 86400000, got 100000000',
    ],
    [
      { latePublication: { share: 0.1, minMs: 30_000, maxMs: 5000 } },
      'startSimulator: latePublication.maxMs must be >= latePublication.minMs (30000), got 5000',
    ],
    [{ historyPageCap: -3 }, 'startSimulator: historyPageCap must be an integer from 0 to 1000000, got -3'],
    [{ historyPageCap: 2.5 }, 'startSimulator: historyPageCap must be an integer from 0 to 1000000, got 2.5'],
    [
      { responseLatencyMs: 40 as never },
      'startSimulator: responseLatencyMs must be an object { min, max } in milliseconds, got 40',
    ],
    [
      { responseLatencyMs: { min: -5, max: 40 } },
      'startSimulator: responseLatencyMs.min must be an integer from 0 to 60000, got -5',
    ],
    [
      { responseLatencyMs: { min: 5, max: 90_000 } },
      'startSimulator: responseLatencyMs.max must be an integer from 0 to 60000, got 90000',
    ],
    [
      { responseLatencyMs: { min: 250, max: 20 } },
      'startSimulator: responseLatencyMs.max must be >= responseLatencyMs.min (250), got 20',
    ],
    [
      { historyPageBytes: -1 },
      'startSimulator: historyPageBytes must be an integer from 0 to 1073741824, got -1',
    ],
    [
      { historyPageBytes: 16.5 },
      'startSimulator: historyPageBytes must be an integer from 0 to 1073741824, got 16.5',
    ],
    [
      { historyTasks: 'paused' as never },
      'startSimulator: historyTasks must be one of all, active, got "paused"',
    ],
    [
      { mediaDelay: true as never },
      'startSimulator: mediaDelay must be an object { snapshotMs: { min, max }, clipMs: { min, max }, busyMs }, got true',
    ],
    [
      { mediaDelay: { snapshotMs: { min: 500 }, clipMs: { min: 0, max: 0 }, busyMs: 0 } as never },
      'startSimulator: mediaDelay.snapshotMs.max must be an integer from 0 to 86400000, got undefined',
    ],
    [
      { mediaDelay: { snapshotMs: { min: 0, max: 0 }, clipMs: { min: 9000, max: 6000 }, busyMs: 0 } },
      'startSimulator: mediaDelay.clipMs.max must be >= mediaDelay.clipMs.min (9000), got 6000',
    ],
    [
      { mediaDelay: { snapshotMs: { min: 0, max: 0 }, clipMs: 20 as never, busyMs: 0 } },
      'startSimulator: mediaDelay.clipMs must be an object { min, max } in milliseconds, got 20',
    ],
    [
      { mediaDelay: { snapshotMs: { min: 0, max: 0 }, clipMs: { min: 0, max: 0 }, busyMs: 90_000 } },
      'startSimulator: mediaDelay.busyMs must be an integer from 0 to 60000, got 90000',
    ],
    [
      { numericTimestamps: 'yes' as never },
      'startSimulator: numericTimestamps must be true or false, got "yes"',
    ],
    [
      { historyTies: 'random' as never },
      'startSimulator: historyTies must be one of id, per-request, got "random"',
    ],
    [{ historyLagMs: -1 }, 'startSimulator: historyLagMs must be an integer from 0 to 86400000, got -1'],
    [{ historyLagMs: 0.5 }, 'startSimulator: historyLagMs must be an integer from 0 to 86400000, got 0.5'],
    [
      { upgradeDelayMs: 90_000 },
      'startSimulator: upgradeDelayMs must be an integer from 0 to 60000, got 90000',
    ],
    [
      { upgradeDelayMs: '30' as never },
      'startSimulator: upgradeDelayMs must be an integer from 0 to 60000, got 30',
    ],
    [{ media: 'empty' as never }, 'startSimulator: media must be one of unique, none, shared, got "empty"'],
  ])(
    'rejects %j with a message naming the field, the value and what is allowed',
    async (options, message) => {
      await expect(startSimulator(options)).rejects.toThrow(new RangeError(message));
    },
  );
});
