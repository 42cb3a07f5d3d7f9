/**
 * How far the simulator departs from an ideal service the way real deployments do: per-camera
 * analysis latency, late (VLM-verified) publication, an undocumented history page cap,
 * numeric timestamps and the time a REST answer takes. A preset gives the defaults; explicit options override each of them.
 * The README explains why each value is plausible.
 */

export type Realism = 'ideal' | 'mild' | 'messy';

export const REALISM_LEVELS: readonly Realism[] = ['ideal', 'mild', 'messy'];

/** Range of a camera's fixed analysis latency, in milliseconds. */
export interface CameraLatency {
  min: number;
  max: number;
}

/**
 * Range of the time every REST answer takes, in milliseconds: a cloud service across a region or
 * an ocean, plus its database query. Each request draws its own duration.
 */
export interface ResponseLatency {
  min: number;
  max: number;
}

/** The share (0..1) of live events published between minMs and maxMs after their timestamp. */
export interface LatePublication {
  share: number;
  minMs: number;
  maxMs: number;
}

export interface RealismSettings {
  cameraLatencyMs: CameraLatency;
  latePublication: LatePublication;
  /** 0 = no cap beyond the form's documented maximum. */
  historyPageCap: number;
  numericTimestamps: boolean;
  responseLatencyMs: ResponseLatency;
}

/** Frozen all the way down: the table is exported, and a caller changing it would change every simulator. */
function frozen(settings: RealismSettings): Readonly<RealismSettings> {
  Object.freeze(settings.cameraLatencyMs);
  Object.freeze(settings.latePublication);
  Object.freeze(settings.responseLatencyMs);
  return Object.freeze(settings);
}

export const REALISM_PRESETS: Readonly<Record<Realism, Readonly<RealismSettings>>> = Object.freeze({
  ideal: frozen({
    cameraLatencyMs: { min: 0, max: 0 },
    latePublication: { share: 0, minMs: 0, maxMs: 0 },
    historyPageCap: 0,
    numericTimestamps: false,
    responseLatencyMs: { min: 0, max: 0 },
  }),
  mild: frozen({
    cameraLatencyMs: { min: 200, max: 1500 },
    latePublication: { share: 0.02, minMs: 5_000, maxMs: 30_000 },
    historyPageCap: 50,
    numericTimestamps: false,
    responseLatencyMs: { min: 5, max: 40 },
  }),
  messy: frozen({
    cameraLatencyMs: { min: 0, max: 5_000 },
    latePublication: { share: 0.05, minMs: 5_000, maxMs: 120_000 },
    historyPageCap: 37,
    numericTimestamps: true,
    responseLatencyMs: { min: 20, max: 250 },
  }),
});
