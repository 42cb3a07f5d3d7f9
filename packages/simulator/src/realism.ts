/**
 * How far the simulator departs from an ideal service the way real deployments do: per-camera
 * analysis latency, late (VLM-verified) publication, undocumented history page caps (in rows and
 * in bytes), numeric timestamps, the time a REST answer takes, media written after the event,
 * same-second history rows in an order of each request's own and history lagging the live feed.
 * A preset gives the defaults; explicit options override each of them.
 * The README explains why each value is plausible.
 */

import type { HistoryTies } from './events/event-log.js';

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

/**
 * When an event's media exist. The snapshot is written `snapshotMs` after the event is published;
 * the clip when its recording has ended and been written, `clipMs` after the event's timestamp
 * (never before publication). Until then the media URL answers 404, and during the last `busyMs`
 * before the file is complete 503 with Retry-After. Drawn per record from the seed; seeded
 * (past) events' media always exist. All zero = off.
 */
export interface MediaDelay {
  snapshotMs: { min: number; max: number };
  clipMs: { min: number; max: number };
  busyMs: number;
}

export interface RealismSettings {
  cameraLatencyMs: CameraLatency;
  latePublication: LatePublication;
  /** 0 = no cap beyond the form's documented maximum. */
  historyPageCap: number;
  /** 0 = no cap; else each history answer holds as many whole rows as fit in this many bytes of JSON (at least one). */
  historyPageBytes: number;
  numericTimestamps: boolean;
  responseLatencyMs: ResponseLatency;
  mediaDelay: MediaDelay;
  /** Order of same-second history rows: by record id, or each request's own. */
  historyTies: HistoryTies;
  /** A live event shows in history this many ms after it was pushed. */
  historyLagMs: number;
}

/** Frozen all the way down: the table is exported, and a caller changing it would change every simulator. */
function frozen(settings: RealismSettings): Readonly<RealismSettings> {
  Object.freeze(settings.cameraLatencyMs);
  Object.freeze(settings.latePublication);
  Object.freeze(settings.responseLatencyMs);
  Object.freeze(settings.mediaDelay.snapshotMs);
  Object.freeze(settings.mediaDelay.clipMs);
  Object.freeze(settings.mediaDelay);
  return Object.freeze(settings);
}

export const REALISM_PRESETS: Readonly<Record<Realism, Readonly<RealismSettings>>> = Object.freeze({
  ideal: frozen({
    cameraLatencyMs: { min: 0, max: 0 },
    latePublication: { share: 0, minMs: 0, maxMs: 0 },
    historyPageCap: 0,
    historyPageBytes: 0,
    numericTimestamps: false,
    responseLatencyMs: { min: 0, max: 0 },
    mediaDelay: { snapshotMs: { min: 0, max: 0 }, clipMs: { min: 0, max: 0 }, busyMs: 0 },
    historyTies: 'id',
    historyLagMs: 0,
  }),
  mild: frozen({
    cameraLatencyMs: { min: 200, max: 1500 },
    latePublication: { share: 0.02, minMs: 5_000, maxMs: 30_000 },
    historyPageCap: 50,
    // A realistic byte budget (hundreds of KB or more) never binds under a 50-row cap: see the README.
    historyPageBytes: 0,
    numericTimestamps: false,
    responseLatencyMs: { min: 5, max: 40 },
    mediaDelay: { snapshotMs: { min: 500, max: 2_000 }, clipMs: { min: 6_000, max: 25_000 }, busyMs: 0 },
    // Not in 'mild': the CLI's default, which the demo runs (see the README).
    historyTies: 'id',
    historyLagMs: 0,
  }),
  messy: frozen({
    cameraLatencyMs: { min: 0, max: 5_000 },
    latePublication: { share: 0.05, minMs: 5_000, maxMs: 120_000 },
    historyPageCap: 37,
    historyPageBytes: 16_384,
    numericTimestamps: true,
    responseLatencyMs: { min: 20, max: 250 },
    mediaDelay: { snapshotMs: { min: 500, max: 8_000 }, clipMs: { min: 6_000, max: 40_000 }, busyMs: 1_500 },
    historyTies: 'per-request',
    historyLagMs: 1_000,
  }),
});
