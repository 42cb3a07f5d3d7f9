/**
 * What the browser gets for one event: plain names, numbers and the runtime's own image and clip
 * addresses. Never the event's media URLs (the service signs those with the token) nor images.
 */
export interface GalleryCard {
  /** Opaque id (random), also the key of the card's snapshot and clip routes. */
  id: string;
  eventName: string;
  taskId: number;
  taskName?: string;
  cameraId?: number;
  cameraName?: string;
  locationId?: number;
  locationName?: string;
  /** When it happened, ISO 8601 UTC: the widget sorts by it. */
  time: string;
  /** The same instant as a wall-clock time in the event's own timezone, `YYYY-MM-DD HH:mm:ss`. */
  localTime: string;
  /** The zone `localTime` is in: the event's timezone, or `UTC` when it has none (basic form). */
  timezone: string;
  /** Highest object confidence, 0..1; absent for an event without detected objects (no "0%"). */
  maxConfidence?: number;
  hasWarning: boolean;
  objectNames: string[];
  /** The annotated snapshot, served by the Node-RED runtime; absent when there is none. */
  imageUrl?: string;
  /**
   * The snapshot did not come: the events node waited for it (its image wait) and sent the event
   * without it. The card shows so instead of an image.
   */
  snapshotMissing?: true;
  /** A small JPEG of it for the card (made by the runtime); the full image only when the card is opened. */
  thumbUrl?: string;
  /** The clip, streamed by the Node-RED runtime; absent without a clip or a server to fetch it. */
  clipUrl?: string;
}

/** What the widget receives on load: the newest cards first, at most the configured number. */
export interface GallerySnapshot {
  cards: GalleryCard[];
}
