/** A task as `GET /tasks` lists it (spec 2.6). Unknown fields (e.g. nested `camera`) pass through. */
export interface TaskSummary {
  id: number;
  name: string;
  /** Two comma-separated words such as `operating, normal`; see `parseTaskStatus`. */
  status: string;
  /** Schedule kind: `24/7`, `daily` or `weekly`. */
  scheduler: string;
  /** Ids of the event types the task detects. */
  events: number[];
  location_id: number;
  camera_id: number;
  /** `rtsp://host:port/path`; may carry camera credentials, so treat as sensitive. */
  camera_rtsp: string;
  [extra: string]: unknown;
}

/** Schedule of a task in detail form. */
export interface TaskScheduler {
  type: string;
  interval: number;
  /** `hh:mm`. */
  start_time: string;
  /** `hh:mm`. */
  end_time: string;
  [extra: string]: unknown;
}

/** GeoJSON-like MultiPolygon in normalized image coordinates (0..1): polygons → rings → [x, y]. */
export interface MultiPolygon {
  type: 'MultiPolygon';
  coordinates: Array<Array<Array<[number, number]>>>;
}

export interface Zone {
  id: number;
  geometry: MultiPolygon;
  [extra: string]: unknown;
}

/** An event kind configured on a task (detail form). Units are not stated by the service. */
export interface TaskEvent {
  id: number;
  name: string;
  /** How long the AI keeps confirming before an event fires (seconds, by the natural reading). */
  detecting_duration: number;
  /** Share of frames in that window that must match (e.g. 0.5). */
  detecting_threshold: number;
  /** Minimum time between two events of the same kind (seconds, by the natural reading). */
  interval: number;
  zones: Zone[];
  [extra: string]: unknown;
}

/** A task as `GET /tasks/:task_id` returns it (spec 2.7). */
export interface TaskDetail {
  id: number;
  name: string;
  status: string;
  scheduler: TaskScheduler;
  events: TaskEvent[];
  location_id: number;
  camera_id: number;
  camera_rtsp: string;
  /** Object name → minimum confidence to report it. */
  confidence_threshold: Record<string, number>;
  /** Object name → four size numbers (order undocumented: min/max width/height, unconfirmed). */
  object_size_filter: Record<string, [number, number, number, number]>;
  [extra: string]: unknown;
}
