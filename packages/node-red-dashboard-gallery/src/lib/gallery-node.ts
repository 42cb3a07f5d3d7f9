import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { GalleryCard, GallerySnapshot } from './gallery-card.js';
import { GalleryState, type StoredImage } from './gallery-state.js';
import { localTime } from './local-time.js';
import { mediaPath } from './media-routes.js';
import { NameBook } from './name-book.js';
import type { DashboardGroup, Node, NodeMessage, Translate } from './node-red-api.js';
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
  translate: Translate;
}

export interface ClipStream {
  data: Readable;
  contentType: string;
  size?: number;
  fileName: string;
}

/**
 * One deployed gallery: turns events into cards, keeps the newest (GalleryState), hands the
 * dashboard one small message per event and the full list on (re)load, and serves the media.
 */
export class GalleryNode {
  readonly state: GalleryState;
  readonly #names: NameBook | undefined;
  readonly #pendingImages = new Map<string, Promise<StoredImage | undefined>>();
  #closed = false;
  #handled = 0;
  #statusTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly node: Node,
    readonly group: DashboardGroup,
    readonly options: GalleryOptions,
  ) {
    this.state = new GalleryState(options.maxCards, options.maxImageBytes);
    this.#names = options.server ? new NameBook(options.server) : undefined;
  }

  /** Messages handled since deploy (shown, dropped as too old, or refused): for tests and diagnostics. */
  get handled(): number {
    return this.#handled;
  }

  /** Dashboard's `beforeSend`: the message the browser gets is the card alone. */
  async toCardMessage(msg: NodeMessage): Promise<NodeMessage | null> {
    try {
      return await this.#toCardMessage(msg);
    } finally {
      this.#handled += 1;
    }
  }

  async #toCardMessage(msg: NodeMessage): Promise<NodeMessage | null> {
    let input: GalleryInput;
    try {
      input = readEvent(msg);
    } catch (error) {
      // Reported on the node (Catch nodes see it) and not shown; the dashboard sends nothing.
      this.node.error(error, msg);
      return null;
    }
    const card = await this.#card(input);
    if (this.#closed) return null;
    const { event } = input;
    const kept = this.state.add(card, {
      source: {
        ...(event.imageUrl === undefined ? {} : { imageUrl: event.imageUrl }),
        ...(event.videoUrl === undefined ? {} : { videoUrl: event.videoUrl }),
        ...(event.id === undefined ? {} : { id: event.id }),
        taskId: event.taskId,
        timestamp: event.timestamp,
      },
      ...(input.annotated ? { image: input.annotated } : {}),
    });
    if (kept) this.#showStatusSoon();
    return kept ? { topic: card.eventName, payload: card } : null;
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
      pending = server
        .client()
        .media.annotatedSnapshot(entry.source)
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

  async clip(id: string): Promise<ClipStream | undefined> {
    const entry = this.state.entry(id);
    const server = this.options.server;
    if (!entry?.source.videoUrl || !server) return undefined;
    try {
      const download = await server.client().media.download(entry.source, 'video');
      return {
        data: download.data,
        contentType: download.contentType,
        fileName: download.fileName,
        ...(download.size === undefined ? {} : { size: download.size }),
      };
    } catch (error) {
      this.node.warn(this.options.translate('ui-observation-gallery.errors.clip', mediaFailure(id, error)));
      throw error;
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#statusTimer) clearTimeout(this.#statusTimer);
    this.#statusTimer = undefined;
    this.state.clear();
    this.#pendingImages.clear();
  }

  /** The card count on the node, at most every STATUS_INTERVAL_MS however fast events come. */
  #showStatusSoon(): void {
    if (this.#statusTimer || this.#closed) return;
    this.#statusTimer = setTimeout(() => {
      this.#statusTimer = undefined;
      if (this.#closed) return;
      const { cards, maxCards } = this.state;
      const text = this.options.translate('ui-observation-gallery.status.cards', {
        count: cards.length,
        max: maxCards,
      });
      this.node.status({ fill: 'green', shape: 'dot', text });
    }, STATUS_INTERVAL_MS);
  }

  async #card({ event, occurredAt, annotated, names }: GalleryInput): Promise<GalleryCard> {
    const id = randomUUID();
    const time = localTime(occurredAt, event.timezone);
    const [taskName, locationName] = await Promise.all([
      names.taskName ?? this.#names?.taskName(event.taskId),
      names.locationName ??
        (event.locationId === undefined ? undefined : this.#names?.locationName(event.locationId)),
    ]);
    const root = this.options.httpNodeRoot;
    const hasImage = annotated !== undefined || (this.options.server !== undefined && !!event.imageUrl);
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
      maxConfidence: typeof event.maxConfidence === 'number' ? event.maxConfidence : 0,
      hasWarning: event.hasWarning === true,
      objectNames: Array.isArray(event.objectNames) ? event.objectNames.map(String) : [],
      ...(hasImage ? { imageUrl: mediaPath(root, this.node.id, 'image', id) } : {}),
      ...(hasClip ? { clipUrl: mediaPath(root, this.node.id, 'clip', id) } : {}),
    };
  }
}
