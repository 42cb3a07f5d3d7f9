/** Public data shapes served by the simulator (snake_case, exactly as they go over the wire). */

/**
 * What an event's `image_url` and `video_url` hold: 'unique' a file of its own (default),
 * 'none' empty strings (a deployment that stores no media), 'shared' the same URLs for every
 * event of a task (a camera's latest frame and clip).
 */
export type EventMedia = 'unique' | 'none' | 'shared';

export const EVENT_MEDIA: readonly EventMedia[] = ['unique', 'none', 'shared'];

/** A deployment form (generation): realtime path, payload fields, history limit and service id. */
export type Form = 'basic' | 'extended';
/** `both` runs the basic and the extended form side by side on one server. */
export type SimulatorForm = Form | 'both';

export interface Coordinates {
  latitude: number;
  longitude: number;
}

export interface Organization {
  id: number;
  name: string;
}

export interface Location {
  id: number;
  name: string;
  timezone: string;
  organization_id: number;
  coordinates: Coordinates;
}

export interface EventType {
  id: number;
  name: string;
  description: string;
}

/** Schedule kinds; the list form of a task carries only this string. */
export type SchedulerKind = '24/7' | 'daily' | 'weekly';

/** The detail form of a task's schedule. */
export interface TaskScheduler {
  type: SchedulerKind;
  interval: number;
  start_time: string;
  end_time: string;
}

export interface Zone {
  id: number;
  geometry: {
    type: 'MultiPolygon';
    /** polygons → rings → [x, y] points, normalized 0..1, each ring closed. */
    coordinates: number[][][][];
  };
}

export interface TaskEvent {
  id: number;
  name: string;
  detecting_duration: number;
  detecting_threshold: number;
  interval: number;
  zones: Zone[];
}

/** A task in detail form (GET /tasks/:task_id). Tasks may carry extra fields; they are served as given. */
export interface Task {
  id: number;
  name: string;
  status: string;
  scheduler: TaskScheduler;
  events: TaskEvent[];
  location_id: number;
  camera_id: number;
  camera_rtsp: string;
  confidence_threshold: Record<string, number>;
  object_size_filter: Record<string, number[]>;
}

/** A task in list form (GET /tasks). */
export interface TaskListItem {
  id: number;
  name: string;
  status: string;
  scheduler: SchedulerKind;
  events: number[];
  location_id: number;
  camera_id: number;
  camera_rtsp: string;
}

export interface DetectedObject {
  object_id: string;
  object_name: string;
  /** [cx, cy, w, h], normalized to the image. */
  coordinates: [number, number, number, number];
  confidence_score: number;
  warning: boolean;
}

export type VlmAnswer = string | number | boolean | string[];

export interface VlmResult {
  observ_template_id: number;
  observ_template_name: string;
  [question: string]: VlmAnswer;
}

/**
 * One simulated event with every field the simulator knows. The extended form sends all of it
 * except `license_plate`; the basic form sends task_id … detected_objects plus `license_plate`
 * when present (see {@link basicPayload} and {@link extendedPayload}).
 */
export interface SimulatedEvent {
  id: number;
  task_id: number;
  event_id: number;
  event_name: string;
  event_description: string;
  timestamp: string;
  image_url: string;
  video_url: string;
  detected_objects: DetectedObject[];
  location_id: number;
  camera_id: number;
  timezone: string;
  vlm: VlmResult | null;
  coordinates: Coordinates;
  note: string;
  license_plate?: string;
}

export interface BasicEventPayload {
  task_id: number;
  event_id: number;
  event_name: string;
  event_description: string;
  /** ISO 8601 UTC; Unix seconds with the `numericTimestamps` option. */
  timestamp: string | number;
  image_url: string;
  video_url: string;
  detected_objects: DetectedObject[];
  license_plate?: string;
}

export type ExtendedEventPayload = Omit<SimulatedEvent, 'license_plate' | 'timestamp'> & {
  /** ISO 8601 UTC; Unix seconds with the `numericTimestamps` option. */
  timestamp: string | number;
};
