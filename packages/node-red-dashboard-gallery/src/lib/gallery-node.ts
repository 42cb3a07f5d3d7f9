import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  type AnnotatedSnapshot,
  createThrottledStatus,
  systemClock,
  type ThrottledStatus,
} from '@observation-service/core';
import type {
  Node,
  NodeMessage,
  NodeRedApi,
} from '@observation-service/node-red-observation/src/lib/node-red-api.js';
import type { DashboardGroup } from './dashboard-api.js';
import type { GalleryCard, GallerySnapshot } from './gallery-card.js';
import { GalleryState, type StoredImage } from './gallery-state.js';
import { localTime } from './local-time.js';
import { mediaPath } from './media-path.js';
import { NameBook } from './name-book.js';
import { type GalleryInput, readEvent } from './read-event.js';
import type { ServerLink } from './server-link.js';

/** Status refreshes at most this often while events stream in. */
const STATUS_INTERVAL_MS = 500;

/** The substitutions of a failed media download's warning. */
function mediaFailure(id: string, error: unknown): { id: string; error: string } {
  return { id, error: error instanceof Error ? error.message : String(error) };
}

export interface GalleryOptions {
  maxCards: number;
  maxImageBytes: number;
  httpNodeRoot: string | false | undefined;
  server?: ServerLink;
  /** The node's texts (status, warnings) in Node-RED's language. */
  translate: NodeRedApi['_'];
}

/** A clip as the browser gets it: the whole file, kept (bounded) so that ranges can be served. */
export interface ClipFile {
  data: Buffer;
  contentType: string;
  fileName: string;
}

/**
 * Thumbnails: this wide at most (a card is ~240 CSS px; 320 keeps it sharp on most screens), in
 * the image's own format (a camera's JPEG stays JPEG, at a lighter quality).
 */
export const THUMB_WIDTH = 320;
const THUMB_QUALITY = 70;
/** Clips kept for range requests (seeking): each at most 32 MiB, together at most 64 MiB. */
const MAX_CLIP_BYTES = 32 * 1024 * 1024;
const MAX_CLIPS_BYTES = 64 * 1024 * 1024;

/**
 * One deployed gallery: turns events into cards, keeps the newest (GalleryState), hands the
 * dashboard one small message per event and the full list on (re)load, and serves the media.
 */
export class GalleryNode {
  readonly state: GalleryState;
  readonly #names: NameBook | undefined;
  readonly #pendingImages = new Map<string, Promise<StoredImage | undefined>>();
  readonly #pendingThumbs = new Map<string, Promise<StoredImage | undefined>>();
  /** Downloaded clips by card id, oldest first (bounded by MAX_CLIPS_BYTES). */
  readonly #clips = new Map<string, Promise<ClipFile>>();
  readonly #clipSizes = new Map<string, number>();
  #closed = false;
  #handled = 0;
  /** The card count on the node, at most every STATUS_INTERVAL_MS however fast events come. */
  readonly #status: ThrottledStatus;

  constructor(
    readonly node: Node,
    readonly group: DashboardGroup,
    readonly options: GalleryOptions,
  ) {
    this.state = new GalleryState(options.maxCards, options.maxImageBytes);
    this.#names = options.server ? new NameBook(options.server) : undefined;
    this.#status = createThrottledStatus(() => this.#showStatus(), {
      intervalMs: STATUS_INTERVAL_MS,
      clock: systemClock,
    });
  }

  /** Messages handled since deploy (shown, dropped as too old, or refused): for tests and diagnostics. */
  get handled(): number {
    return this.#handled;
  }

  /**
   * Dashboard's `beforeSend`: the message the browser gets is the card alone. An event that
   * shows no card (older than every card kept, as many are in a catch-up burst, or not an event)
   * gets a message without a payload, which the browser ignores: Dashboard 2 (1.31) reads the
   * message's properties after beforeSend, and a `null` there threw "TypeError: Cannot convert
   * undefined or null to object" once per such event.
   */
  async toCardMessage(msg: NodeMessage): Promise<NodeMessage> {
    try {
      return await this.#toCardMessage(msg);
    } finally {
      this.#handled += 1;
    }
  }

  async #toCardMessage(msg: NodeMessage): Promise<NodeMessage> {
    let input: GalleryInput;
    try {
      input = readEvent(msg);
    } catch (error) {
      // Reported on the node (Catch nodes see it) and not shown.
      this.node.error(error, msg);
      return noCard();
    }
    const card = await this.#card(input);
    if (this.#closed) return noCard();
    const { event } = input;
    const kept = this.state.add(card, {
      source: {
        // A snapshot the events node waited for in vain is not fetched again.
        ...(event.imageUrl === undefined || input.snapshotMissing ? {} : { imageUrl: event.imageUrl }),
        ...(event.videoUrl === undefined ? {} : { videoUrl: event.videoUrl }),
        ...(event.id === undefined ? {} : { id: event.id }),
        taskId: event.taskId,
        timestamp: event.timestamp,
      },
      ...(input.annotated ? { image: input.annotated } : {}),
    });
    if (kept) this.#status.request();
    return kept ? { topic: card.eventName, payload: card } : noCard();
  }

  /** Dashboard's `onInput` (after beforeSend): the list a newly opened page starts from. */
  saveSnapshot(): void {
    const snapshot: GallerySnapshot = { cards: [...this.state.cards] };
    this.group.getBase().stores.data.save(this.group.getBase(), this.node, { payload: snapshot });
  }

  async image(id: string): Promise<StoredImage | undefined> {
    const entry = this.state.entry(id);
    if (!entry) return undefined;
    if (entry.image) return entry.image;
    const server = this.options.server;
    if (!server || !entry.source.imageUrl) return undefined;
    // One download per card however many browsers ask at once.
    let pending = this.#pendingImages.get(id);
    if (!pending) {
      // A fresh event's snapshot may not be written yet: core waits for it (its media wait).
      pending = server
        .client()
        .media.annotatedSnapshot(entry.source, server.annotate ? { annotate: server.annotate } : {})
        .then(
          (annotated) => {
            const image = { data: annotated.data, contentType: annotated.contentType };
            this.state.storeImage(id, image);
            return image;
          },
          (error: unknown) => {
            this.node.warn(
              this.options.translate('ui-observation-gallery.errors.snapshot', mediaFailure(id, error)),
            );
            throw error;
          },
        )
        .finally(() => this.#pendingImages.delete(id));
      this.#pendingImages.set(id, pending);
    }
    return pending;
  }

  /**
   * The card's thumbnail: the annotated image scaled down to THUMB_WIDTH, made by the runtime (in
   * the server node's worker threads when it has them), so a page of cards loads small images;
   * the full image is fetched only when a card is opened. Without a way to draw, the full image.
   */
  async thumbnail(id: string): Promise<StoredImage | undefined> {
    const entry = this.state.entry(id);
    if (!entry) return undefined;
    if (entry.thumb) return entry.thumb;
    let pending = this.#pendingThumbs.get(id);
    if (!pending) {
      pending = this.image(id)
        .then(async (image) => {
          const annotate = this.options.server?.annotate;
          if (!image || !annotate) return image;
          const thumb: AnnotatedSnapshot = await annotate(image.data, [], {
            maxWidth: THUMB_WIDTH,
            quality: THUMB_QUALITY,
          });
          const stored = { data: thumb.data, contentType: thumb.contentType };
          this.state.storeImage(id, stored, 'thumb');
          return stored;
        })
        .finally(() => this.#pendingThumbs.delete(id));
      this.#pendingThumbs.set(id, pending);
    }
    return pending;
  }

  /**
   * The card's clip, downloaded once and kept (bounded) so the browser can seek with range
   * requests. A clip larger than MAX_CLIP_BYTES is refused (the service link is the way to it).
   */
  async clip(id: string): Promise<ClipFile | undefined> {
    const entry = this.state.entry(id);
    const server = this.options.server;
    if (!entry?.source.videoUrl || !server) return undefined;
    let pending = this.#clips.get(id);
    if (!pending) {
      pending = server
        .client()
        .media.download(entry.source, 'video')
        .then(async (download) => {
          const data = await collect(download.data, MAX_CLIP_BYTES);
          this.#keepClip(id, data.length);
          return { data, contentType: download.contentType, fileName: download.fileName };
        });
      this.#clips.set(id, pending);
      pending.catch((error: unknown) => {
        this.#clips.delete(id);
        this.node.warn(this.options.translate('ui-observation-gallery.errors.clip', mediaFailure(id, error)));
      });
    }
    return pending;
  }

  /** Counts a kept clip and lets the oldest go past MAX_CLIPS_BYTES. */
  #keepClip(id: string, size: number): void {
    this.#clipSizes.set(id, size);
    let total = 0;
    for (const bytes of this.#clipSizes.values()) total += bytes;
    for (const [oldId, bytes] of this.#clipSizes) {
      if (total <= MAX_CLIPS_BYTES || oldId === id) break;
      this.#clipSizes.delete(oldId);
      this.#clips.delete(oldId);
      total -= bytes;
    }
  }

  close(): void {
    this.#closed = true;
    this.#status.close();
    this.state.clear();
    this.#pendingImages.clear();
    this.#pendingThumbs.clear();
    this.#clips.clear();
    this.#clipSizes.clear();
  }

  #showStatus(): void {
    const { cards, maxCards } = this.state;
    const text = this.options.translate('ui-observation-gallery.status.cards', {
      count: cards.length,
      max: maxCards,
    });
    this.node.status({ fill: 'green', shape: 'dot', text });
  }

  async #card({ event, occurredAt, annotated, snapshotMissing, names }: GalleryInput): Promise<GalleryCard> {
    const id = randomUUID();
    const time = localTime(occurredAt, event.timezone);
    const [taskName, locationName] = await Promise.all([
      names.taskName ?? this.#names?.taskName(event.taskId),
      names.locationName ??
        (event.locationId === undefined ? undefined : this.#names?.locationName(event.locationId)),
    ]);
    const root = this.options.httpNodeRoot;
    const hasImage =
      annotated !== undefined || (!snapshotMissing && this.options.server !== undefined && !!event.imageUrl);
    const hasClip = this.options.server !== undefined && !!event.videoUrl;
    return {
      id,
      eventName: event.eventName,
      taskId: event.taskId,
      ...(taskName === undefined ? {} : { taskName }),
      ...(event.cameraId === undefined ? {} : { cameraId: event.cameraId }),
      ...(names.cameraName === undefined ? {} : { cameraName: names.cameraName }),
      ...(event.locationId === undefined ? {} : { locationId: event.locationId }),
      ...(locationName === undefined ? {} : { locationName }),
      time: occurredAt.toISOString(),
      localTime: time.text,
      timezone: time.timezone,
      // An event without objects (a basic-form event, or one the service sent none with) has no
      // confidence to show: "0%" read as a detection at no confidence.
      ...(typeof event.maxConfidence === 'number' && hasObjects(event)
        ? { maxConfidence: event.maxConfidence }
        : {}),
      hasWarning: event.hasWarning === true,
      objectNames: Array.isArray(event.objectNames) ? event.objectNames.map(String) : [],
      ...(snapshotMissing ? { snapshotMissing: true as const } : {}),
      ...(hasImage
        ? {
            imageUrl: mediaPath(root, this.node.id, 'image', id),
            thumbUrl: mediaPath(root, this.node.id, 'thumb', id),
          }
        : {}),
      ...(hasClip ? { clipUrl: mediaPath(root, this.node.id, 'clip', id) } : {}),
    };
  }
}

/** Whether the event has at least one detected object (its objects, or their names). */
function hasObjects(event: { objects?: unknown; objectNames?: unknown }): boolean {
  return (
    (Array.isArray(event.objects) && event.objects.length > 0) ||
    (Array.isArray(event.objectNames) && event.objectNames.length > 0)
  );
}

/** What the dashboard gets for an event that shows no card: nothing for the browser to draw. */
function noCard(): NodeMessage {
  return {};
}

/** Reads a stream into one buffer, refusing more than `max` bytes (the stream is destroyed). */
async function collect(stream: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > max) {
      stream.destroy();
      throw new Error(`the clip is larger than ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
