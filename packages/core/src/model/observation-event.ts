/** Box normalized to the image: centre x, centre y, width, height, each 0..1. */
export interface NormalizedBox {
  cx: number;
  cy: number;
  w: number;
  h: number;
}

export interface DetectedObject {
  objectId: string;
  name: string;
  box: NormalizedBox;
  /** 0..1. */
  confidence: number;
  warning: boolean;
}

export type VlmAnswer = string | number | boolean | string[];

export interface VlmResult {
  templateId?: number;
  templateName?: string;
  /** Question or attribute name (free text, may contain spaces) → answer. */
  answers: Record<string, VlmAnswer>;
}

export interface GeoCoordinates {
  latitude: number;
  longitude: number;
}

/** One event in a single model for both forms. Plain data: safe to JSON.stringify (occurredAt becomes ISO). */
export interface ObservationEvent {
  /** Record id (extended form only); what history's `ids` filter refers to. */
  id?: number;
  taskId: number;
  /**
   * Id of the event's TYPE (see `events.getType`; the spec's `event_id`), not of this record:
   * the record's id is `id`.
   */
  eventTypeId: number;
  eventName: string;
  eventDescription?: string;
  /** The timestamp exactly as the service sent it. */
  timestamp: string;
  occurredAt: Date;
  imageUrl?: string;
  videoUrl?: string;
  licensePlate?: string;
  locationId?: number;
  cameraId?: number;
  timezone?: string;
  note?: string;
  coordinates?: GeoCoordinates;
  objects: DetectedObject[];
  /** Distinct object names, in order of first appearance. */
  objectNames: string[];
  /** Highest object confidence, 0 without objects. */
  maxConfidence: number;
  /** True when any object is in warning state. */
  hasWarning: boolean;
  vlm?: VlmResult;
  /** Which payload form the event arrived in (the last field but `extra`). */
  form: 'basic' | 'extended';
  /** Fields the interface does not describe, passed through untouched. */
  extra: Record<string, unknown>;
}

/** Result of `normalizeEvent`: an event when usable, and every problem found (may be both). */
export interface NormalizeResult {
  event: ObservationEvent | undefined;
  problems: string[];
}
