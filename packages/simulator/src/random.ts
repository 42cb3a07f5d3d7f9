/**
 * Deterministic randomness for the seeded world. Everything the simulator serves as data comes
 * from here (never Math.random), so a seed always yields the same world and the same event #i.
 */

/** murmur3's 32-bit finalizer: spreads every input bit over the output. */
export function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of two 32-bit integers, e.g. (seed, record id) → the seed of that record's generator. */
export function hash2(a: number, b: number): number {
  return fmix32(Math.imul(fmix32(a) ^ 0x9e3779b9, 0x01000193) ^ fmix32(b + 0x632be5ab));
}

/** mulberry32: tiny, fast, good enough for test data. Returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Convenience wrapper over mulberry32. */
export class Rng {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }

  next(): number {
    return this.#next();
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.#next() * (max - min + 1));
  }

  /** Float in [min, max) rounded to `decimals`. */
  float(min: number, max: number, decimals = 4): number {
    return round(min + this.#next() * (max - min), decimals);
  }

  chance(probability: number): boolean {
    return this.#next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.#next() * items.length)];
    if (item === undefined) throw new RangeError('Rng.pick needs a non-empty list');
    return item;
  }
}

export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
