/** Renders snapshots on demand and keeps the most recent few: clients often fetch one image twice. */
import { readFileSync } from 'node:fs';
import type { SimulatedEvent } from '../types.js';
import { renderSnapshot } from './snapshot-renderer.js';

export interface Snapshot {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg';
  extension: 'png' | 'jpg';
}

export class SnapshotStore {
  readonly #cache = new Map<number, Buffer>();
  readonly #capacity: number;
  /** A camera frame served for every event (`snapshotFile`), read once. */
  readonly #fixed: Snapshot | undefined;
  #empty: Buffer | undefined;

  constructor(capacity = 32, file?: string) {
    this.#capacity = capacity;
    if (file) {
      const png = /\.png$/i.test(file);
      this.#fixed = {
        data: readFileSync(file),
        contentType: png ? 'image/png' : 'image/jpeg',
        extension: png ? 'png' : 'jpg',
      };
    }
  }

  /** A camera frame without boxes (or the `snapshotFile`): a task's shared snapshot. */
  frame(): Snapshot {
    if (this.#fixed) return this.#fixed;
    this.#empty ??= renderSnapshot([]);
    return { data: this.#empty, contentType: 'image/png', extension: 'png' };
  }

  snapshot(event: SimulatedEvent): Snapshot {
    return this.#fixed ?? { data: this.get(event), contentType: 'image/png', extension: 'png' };
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
