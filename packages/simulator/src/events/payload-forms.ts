/** The two wire forms of an event, built from one full record. */
import { epochSecondsOf } from '../time-format.js';
import type { BasicEventPayload, ExtendedEventPayload, SimulatedEvent } from '../types.js';

/** Options of the wire forms. */
export interface PayloadOptions {
  /** `timestamp` as Unix seconds (a number), as the `numericTimestamps` option sends it. */
  numericTimestamps?: boolean;
}

/** The basic (older) form: no id, location, camera, timezone, vlm, coordinates or note; may carry license_plate. */
export function basicPayload(event: SimulatedEvent, options: PayloadOptions = {}): BasicEventPayload {
  const payload: BasicEventPayload = {
    task_id: event.task_id,
    event_id: event.event_id,
    event_name: event.event_name,
    event_description: event.event_description,
    timestamp: options.numericTimestamps ? epochSecondsOf(event.timestamp) : event.timestamp,
    image_url: event.image_url,
    video_url: event.video_url,
    detected_objects: event.detected_objects,
  };
  if (event.license_plate !== undefined) payload.license_plate = event.license_plate;
  return payload;
}

/** The extended (current) form: every field except license_plate, which only the basic form lists. */
export function extendedPayload(event: SimulatedEvent, options: PayloadOptions = {}): ExtendedEventPayload {
  return {
    id: event.id,
    task_id: event.task_id,
    event_id: event.event_id,
    event_name: event.event_name,
    event_description: event.event_description,
    timestamp: options.numericTimestamps ? epochSecondsOf(event.timestamp) : event.timestamp,
    image_url: event.image_url,
    video_url: event.video_url,
    detected_objects: event.detected_objects,
    location_id: event.location_id,
    camera_id: event.camera_id,
    timezone: event.timezone,
    vlm: event.vlm,
    coordinates: event.coordinates,
    note: event.note,
  };
}
