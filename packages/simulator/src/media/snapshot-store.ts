/** Renders snapshots on demand and keeps the most recent few: clients often fetch one image twice. */
import type { SimulatedEvent } from '../types.js';
import { renderSnapshot } from './snapshot-renderer.js';

export class SnapshotStore {
  readonly #cache = new Map<number, Buffer>();
  readonly #capacity: number;

  constructor(capacity = 32) {
    this.#capacity = capacity;
  }

  get(event: SimulatedEvent): Buffer {
    const cached = this.#cache.get(event.id);
    if (cached) {
      // Re-insert: Map keeps insertion order, so the first key is the least recently used.
      this.#cache.delete(event.id);
      this.#cache.set(event.id, cached);
      return cached;
    }
    const png = renderSnapshot(event.detected_objects);
    this.#cache.set(event.id, png);
    if (this.#cache.size > this.#capacity) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    return png;
  }
}
