import type { GalleryCard } from '../lib/gallery-card.js';

/**
 * Merges new cards into the shown list: newest (by event time) first, each id once, at most
 * `max`. Pure, so the browser's bound is the same rule as Node-RED's (GalleryState).
 */
export function mergeCards(shown: readonly GalleryCard[], incoming: readonly GalleryCard[], max: number) {
  const byId = new Map<string, GalleryCard>();
  for (const card of [...incoming, ...shown]) if (!byId.has(card.id)) byId.set(card.id, card);
  return [...byId.values()].sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0)).slice(0, max);
}

/**
 * Collects cards that arrive between two paints and hands them over once per frame, so a burst
 * of a hundred events a second costs one re-render per frame, not one per event. While the tab
 * is hidden (no frames) the waiting cards are trimmed to `max`, so memory stays bounded.
 */
export class CardBuffer {
  #waiting: GalleryCard[] = [];
  #scheduled = false;

  constructor(
    readonly max: () => number,
    readonly flush: (cards: GalleryCard[]) => void,
    readonly nextFrame: (callback: () => void) => void,
  ) {}

  get waiting(): number {
    return this.#waiting.length;
  }

  push(card: GalleryCard): void {
    this.#waiting.push(card);
    if (this.#waiting.length > 2 * this.max()) this.#waiting = mergeCards([], this.#waiting, this.max());
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.nextFrame(() => {
      this.#scheduled = false;
      const cards = this.#waiting;
      this.#waiting = [];
      this.flush(cards);
    });
  }
}
