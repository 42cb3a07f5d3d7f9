/**
 * When a live event is recorded and pushed relative to its timestamp: after its camera's fixed
 * analysis latency, or, for the late share, seconds to minutes after it occurred (a VLM-verified
 * event). Both are drawn from hashes of the seed (and the camera id or record id), never from the
 * pump's random stream, so turning them on leaves the choice of tasks exactly as it was.
 */
import { hash2 } from '../random.js';
import type { CameraLatency, LatePublication } from '../realism.js';

const CAMERA_SALT = 0xca11;
const LATE_SALT = 0x1a7e;
const LATE_DELAY_SALT = 0x1a7f;

export class PublicationDelay {
  /** false when every event is published the moment it occurs. */
  readonly active: boolean;
  readonly #seed: number;
  readonly #camera: CameraLatency;
  readonly #late: LatePublication;
  /** share × 2^32, compared with a 32-bit hash. */
  readonly #lateThreshold: number;

  constructor(seed: number, camera: CameraLatency, late: LatePublication) {
    this.#seed = seed;
    this.#camera = camera;
    this.#late = late;
    this.#lateThreshold = late.share * 2 ** 32;
    this.active = camera.max > 0 || late.share > 0;
  }

  /** The fixed analysis latency of this camera, in [min, max] ms. */
  cameraLatencyMs(cameraId: number): number {
    const { min, max } = this.#camera;
    if (max === min) return min;
    return min + (hash2(this.#seed ^ CAMERA_SALT, cameraId) % (max - min + 1));
  }

  /** How long after its timestamp record `id` is published when it is one of the late share; else undefined. */
  lateMs(id: number): number | undefined {
    if (this.#lateThreshold === 0 || hash2(this.#seed ^ LATE_SALT, id) >= this.#lateThreshold)
      return undefined;
    const { minMs, maxMs } = this.#late;
    return minMs + (hash2(this.#seed ^ LATE_DELAY_SALT, id) % (maxMs - minMs + 1));
  }
}
