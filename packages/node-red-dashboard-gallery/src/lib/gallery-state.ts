import type { GalleryCard } from './gallery-card.js';

export interface StoredImage {
  data: Buffer;
  contentType: string;
}

/** What the runtime keeps per card to serve its picture and clip (the event's media addresses). */
export interface MediaEntry {
  source: { imageUrl?: string; videoUrl?: string; id?: number; taskId: number; timestamp?: string };
  image?: StoredImage;
  /** The card's thumbnail, made from `image`. */
  thumb?: StoredImage;
}

export type ImageKind = 'image' | 'thumb';

/**
 * The newest `maxCards` cards (by event time, newest first) and, per card, its media entry.
 * Memory is bounded twice: a card that falls off the end takes its entry and image with it, and
 * the images and thumbnails together never hold more than `maxImageBytes` (the oldest are let go
 * first; their cards stay and the image is fetched again when asked for, if a server is configured).
 */
export class GalleryState {
  #cards: GalleryCard[] = [];
  readonly #media = new Map<string, MediaEntry>();
  #imageBytes = 0;

  constructor(
    readonly maxCards: number,
    readonly maxImageBytes: number,
  ) {}

  get cards(): readonly GalleryCard[] {
    return this.#cards;
  }

  get imageBytes(): number {
    return this.#imageBytes;
  }

  get entries(): number {
    return this.#media.size;
  }

  /** Adds a card; false when it is older than every kept card of a full gallery (nothing is kept). */
  add(card: GalleryCard, entry: MediaEntry): boolean {
    const at = this.#cards.findIndex((kept) => kept.time < card.time);
    const index = at === -1 ? this.#cards.length : at;
    if (index >= this.maxCards) return false;
    this.#cards.splice(index, 0, card);
    this.#media.set(card.id, { source: entry.source });
    if (entry.image) this.storeImage(card.id, entry.image);
    for (const dropped of this.#cards.splice(this.maxCards)) this.#forget(dropped.id);
    return true;
  }

  entry(id: string): MediaEntry | undefined {
    return this.#media.get(id);
  }

  /** Keeps an image (or thumbnail) of a card still shown, letting the oldest go past the byte cap. */
  storeImage(id: string, image: StoredImage, kind: ImageKind = 'image'): void {
    const entry = this.#media.get(id);
    if (!entry || image.data.length > this.maxImageBytes) return;
    const kept = entry[kind];
    if (kept) this.#imageBytes -= kept.data.length;
    entry[kind] = image;
    this.#imageBytes += image.data.length;
    for (const [otherId, other] of this.#media) {
      if (this.#imageBytes <= this.maxImageBytes) break;
      for (const otherKind of ['image', 'thumb'] as const) {
        const held = other[otherKind];
        if ((otherId === id && otherKind === kind) || !held) continue;
        this.#imageBytes -= held.data.length;
        delete other[otherKind];
        if (this.#imageBytes <= this.maxImageBytes) break;
      }
    }
  }

  clear(): void {
    this.#cards = [];
    this.#media.clear();
    this.#imageBytes = 0;
  }

  #forget(id: string): void {
    const entry = this.#media.get(id);
    if (entry?.image) this.#imageBytes -= entry.image.data.length;
    if (entry?.thumb) this.#imageBytes -= entry.thumb.data.length;
    this.#media.delete(id);
  }
}
