/**
 * When each live event's snapshot and clip exist. Real NVRs and AI pipelines publish an event
 * first and write its media afterwards: the snapshot a moment after publication, the clip once
 * the recording around the event has ended and been written. Until then the media URLs answer
 * 404 (see media-routes).
 *
 * Under `mediaDelay` every live record gets its two times from hashes of the seed and its id
 * (two typed arrays, no object per event); `emit(…, { snapshotDelayMs, clipDelayMs })` fixes
 * them for chosen events, `Infinity` meaning never. Seeded (past) events' media always exist.
 * With the option off and no override nothing is recorded: the pump does not call in at all.
 */
import { hash2 } from '../random.js';
import type { MediaDelay } from '../realism.js';

const SNAPSHOT_SALT = 0x5a95;
const CLIP_SALT = 0xc11b;

/** Epoch milliseconds from which each file exists: 0 = always, Infinity = never. */
export interface MediaReadiness {
  snapshotAtMs: number;
  clipAtMs: number;
}

/** Per-event overrides, in ms after publication (Infinity = never); undefined = the drawn time. */
export interface MediaOverride {
  snapshotDelayMs?: number;
  clipDelayMs?: number;
}

const ALWAYS: MediaReadiness = Object.freeze({ snapshotAtMs: 0, clipAtMs: 0 });

export class MediaSchedule {
  /** true when `mediaDelay` is on: every live record must be reported to {@link published}. */
  readonly drawing: boolean;
  readonly #seed: number;
  /** Record id of the first live record: ids below it are seeded (past) ones. */
  readonly #firstLiveId: number;
  readonly #delay: MediaDelay;
  #snapshotAt = new Float64Array(0);
  #clipAt = new Float64Array(0);
  /** Overrides while not drawing: a test's few chosen events. */
  readonly #fixed = new Map<number, MediaReadiness>();

  constructor(seed: number, firstLiveId: number, delay: MediaDelay) {
    this.#seed = seed;
    this.#firstLiveId = firstLiveId;
    this.#delay = delay;
    this.drawing = delay.snapshotMs.max > 0 || delay.clipMs.max > 0;
    if (this.drawing) {
      this.#snapshotAt = new Float64Array(1024);
      this.#clipAt = new Float64Array(1024);
    }
  }

  /** Records when live record `id`'s media will exist; call when drawing or when `override` is given. */
  published(id: number, publishedMs: number, occurredMs: number, override?: MediaOverride): void {
    let snapshotAtMs = publishedMs;
    let clipAtMs = publishedMs;
    if (this.drawing) {
      snapshotAtMs += this.#draw(this.#delay.snapshotMs, SNAPSHOT_SALT, id);
      // The recording ends and is written some time after the event occurred; a late event's
      // clip may be complete before the event is published, but is never served before it.
      clipAtMs = Math.max(publishedMs, occurredMs + this.#draw(this.#delay.clipMs, CLIP_SALT, id));
    }
    if (override?.snapshotDelayMs !== undefined) snapshotAtMs = publishedMs + override.snapshotDelayMs;
    if (override?.clipDelayMs !== undefined) clipAtMs = publishedMs + override.clipDelayMs;
    if (!this.drawing) {
      this.#fixed.set(id, { snapshotAtMs, clipAtMs });
      return;
    }
    const position = id - this.#firstLiveId;
    if (position >= this.#snapshotAt.length) this.#grow(position + 1);
    this.#snapshotAt[position] = snapshotAtMs;
    this.#clipAt[position] = clipAtMs;
  }

  /** When record `id`'s media exist (an id that does not exist reads as always: the route 404s it first). */
  readyAt(id: number): MediaReadiness {
    if (id < this.#firstLiveId) return ALWAYS;
    if (!this.drawing) return this.#fixed.get(id) ?? ALWAYS;
    const position = id - this.#firstLiveId;
    if (position >= this.#snapshotAt.length) return ALWAYS;
    return {
      snapshotAtMs: this.#snapshotAt[position] as number,
      clipAtMs: this.#clipAt[position] as number,
    };
  }

  #draw(range: { min: number; max: number }, salt: number, id: number): number {
    if (range.max === range.min) return range.min;
    return range.min + (hash2(this.#seed ^ salt, id) % (range.max - range.min + 1));
  }

  #grow(needed: number): void {
    const length = Math.max(needed, this.#snapshotAt.length * 2);
    const snapshotAt = new Float64Array(length);
    const clipAt = new Float64Array(length);
    snapshotAt.set(this.#snapshotAt);
    clipAt.set(this.#clipAt);
    this.#snapshotAt = snapshotAt;
    this.#clipAt = clipAt;
  }
}
