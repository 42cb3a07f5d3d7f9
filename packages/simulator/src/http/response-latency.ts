/**
 * How long each REST answer takes under `responseLatencyMs`. Request n (counted from start, in
 * arrival order) always draws the same duration for a seed: a hash of the seed and n, never
 * Math.random, so a run that failed on a slow answer can be repeated.
 */
import { hash2 } from '../random.js';
import type { ResponseLatency } from '../realism.js';

const RESPONSE_SALT = 0x7e5b;

export class ResponseLatencyDraw {
  readonly #seed: number;
  readonly #range: ResponseLatency;
  #requests = 0;

  constructor(seed: number, range: ResponseLatency) {
    this.#seed = seed;
    this.#range = range;
  }

  /** The duration of the next request's answer, in [min, max] ms. */
  nextMs(): number {
    const n = this.#requests++;
    const { min, max } = this.#range;
    if (max === min) return min;
    return min + (hash2(this.#seed ^ RESPONSE_SALT, n) % (max - min + 1));
  }
}
