/** A detected object as the service sends it (spec 2.2). */
export interface RawDetectedObject {
  object_id: string;
  object_name: string;
  /** Normalized `[cx, cy, w, h]`: centre x, centre y, width, height, each 0..1 of the image. */
  coordinates: [number, number, number, number];
  confidence_score: number;
  warning: boolean;
  [extra: string]: unknown;
}

/** Vision-language-model result (spec 2.3, extended form): template plus free-text keys. */
export interface RawVlmResult {
  observ_template_id?: number;
  observ_template_name?: string;
  [answer: string]: unknown;
}

/** An event of the basic (older) form, as received over WebSocket or from history. */
export interface RawBasicEvent {
  task_id: number;
  event_id: number;
  event_name: string;
  event_description?: string;
  /** ISO 8601 UTC, `YYYY-MM-DDThh:mm:ssZ`. */
  timestamp: string;
  image_url?: string;
  video_url?: string;
  license_plate?: string;
  detected_objects?: RawDetectedObject[];
  [extra: string]: unknown;
}

/** An event of the extended (current) form: the basic fields plus record id, place and vlm. */
export interface RawExtendedEvent extends RawBasicEvent {
  id: number;
  location_id?: number;
  camera_id?: number;
  timezone?: string;
  vlm?: RawVlmResult;
  coordinates?: { latitude: number; longitude: number };
  note?: string;
}

export type RawEvent = RawBasicEvent | RawExtendedEvent;
