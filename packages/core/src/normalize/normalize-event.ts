import type {
  DetectedObject,
  GeoCoordinates,
  NormalizeResult,
  ObservationEvent,
} from '../model/observation-event.js';
import { readDetectedObjects } from './detected-objects.js';
import {
  isRecord,
  type Problems,
  readInteger,
  readNumber,
  readString,
  sample,
  setOwn,
} from './read-fields.js';
import { readTimestamp } from './read-timestamp.js';
import { readVlm } from './vlm.js';

/** Which optional field `readOptional` sets (plain numbers: a switch on them is cheap). */
const Field = {
  RecordId: 1,
  LocationId: 2,
  CameraId: 3,
  Coordinates: 4,
  Vlm: 5,
  Description: 6,
  ImageUrl: 7,
  VideoUrl: 8,
  LicensePlate: 9,
  Timezone: 10,
  Note: 11,
} as const;
type Field = (typeof Field)[keyof typeof Field];

/** Whether the interface describes a payload key; one it does not goes to `extra`. */
function isKnownKey(key: string): boolean {
  switch (key) {
    case 'id':
    case 'task_id':
    case 'event_id':
    case 'event_name':
    case 'event_description':
    case 'timestamp':
    case 'image_url':
    case 'video_url':
    case 'license_plate':
    case 'detected_objects':
    case 'location_id':
    case 'camera_id':
    case 'timezone':
    case 'vlm':
    case 'coordinates':
    case 'note':
      return true;
    default:
      return false;
  }
}

function readGeo(value: unknown, problems: Problems): GeoCoordinates | undefined {
  if (!isRecord(value)) {
    problems.push(`coordinates is not an object with latitude and longitude: ${sample(value)}`);
    return undefined;
  }
  const latitude = readNumber(value.latitude, 'coordinates.latitude', problems);
  const longitude = readNumber(value.longitude, 'coordinates.longitude', problems);
  if (latitude === undefined || longitude === undefined) return undefined;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
    problems.push(`coordinates (${latitude}, ${longitude}) are outside the globe`);
  }
  return { latitude, longitude };
}

function readRequiredInteger(value: unknown, key: string, problems: Problems): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (value === undefined || value === null) {
    problems.push(`${key} is missing`);
    return undefined;
  }
  return readInteger(value, key, problems);
}

/**
 * Turns a basic- or extended-form event (as received over WebSocket or from history) into one
 * `ObservationEvent`. Pure and total: it never throws. `event` is undefined only when the payload
 * cannot identify an event (not an object, or no usable task_id, event_id, event_name or
 * timestamp); `problems` lists everything that was missing, odd or coerced.
 */
export function normalizeEvent(raw: unknown): NormalizeResult {
  const problems: Problems = [];
  return { event: normalizeWithProblems(raw, problems), problems };
}

/** Problems of the events `readEvent` normalizes: nobody reads them, so one list serves all. */
const unread: Problems = [];

/**
 * `normalizeEvent` for the realtime hot path: the event, or undefined when the payload cannot
 * identify one, without a result object and a problem list per event. A caller that must say
 * why an event is unusable asks `normalizeEvent` for that one (the rare case).
 */
export function readEvent(raw: unknown): ObservationEvent | undefined {
  return normalizeWithProblems(raw, unread);
}

/**
 * `normalizeEvent` with the problems in the caller's list, which it empties first, and without a
 * result object: for readers that normalize every row or frame and keep one list for all.
 */
export function normalizeWithProblems(raw: unknown, problems: Problems): ObservationEvent | undefined {
  // Setting an array's length is a runtime call even when it is 0 already, as it is after a clean event.
  if (problems.length !== 0) problems.length = 0;
  try {
    return normalizeUnsafe(raw, problems);
  } catch (error) {
    // Defensive: a getter or proxy in a host-made object could still throw.
    problems.push(`event could not be read: ${error instanceof Error ? error.message : sample(error)}`);
    return undefined;
  }
}

function normalizeUnsafe(raw: unknown, problems: Problems): ObservationEvent | undefined {
  if (!isRecord(raw)) {
    problems.push(`event is not an object: ${sample(raw)}`);
    return undefined;
  }
  const taskId = readRequiredInteger(raw.task_id, 'task_id', problems);
  const eventTypeId = readRequiredInteger(raw.event_id, 'event_id', problems);
  const name = raw.event_name;
  let eventName: string | undefined;
  if (typeof name === 'string') eventName = name;
  else if (name === undefined || name === null) problems.push('event_name is missing');
  else eventName = readString(name, 'event_name', problems);
  const timestamp = raw.timestamp;
  const occurredAt = readTimestamp(timestamp, problems);
  if (
    taskId === undefined ||
    eventTypeId === undefined ||
    eventName === undefined ||
    occurredAt === undefined
  ) {
    return undefined;
  }

  const objects = readDetectedObjects(raw.detected_objects, problems);
  const objectNames: string[] = [];
  let maxConfidence = 0;
  let hasWarning = false;
  for (let i = 0; i < objects.length; i++) {
    const object = objects[i] as DetectedObject;
    if (object.name !== '' && !objectNames.includes(object.name)) objectNames.push(object.name);
    if (object.confidence > maxConfidence) maxConfidence = object.confidence;
    if (object.warning) hasWarning = true;
  }
  // Every event gets these fields in this order (one object shape). `form` and `extra` come
  // last, after the optional fields (hosts show the fields in this order, and `form` first read
  // as the most important field): the two are added once every optional field is set, so events
  // with the same fields still share one shape, and no field is ever deleted.
  const event = {
    taskId,
    eventTypeId,
    eventName,
    timestamp: typeof timestamp === 'string' ? timestamp : String(timestamp),
    occurredAt,
    objects,
    objectNames,
    maxConfidence,
    hasWarning,
  } as ObservationEvent;
  const extra: Record<string, unknown> = {};
  // The optional fields, read by name in the interface's order: the service sends one shape, so
  // each read is one inline-cache hit (a `for…in` with a lookup per key cost about 0.1 µs more an
  // event), and events with the same fields get one shape whatever order their payload had. A
  // value of the interface's type is set right here (a call per field to `take`'s general reader
  // cost about 0.08 µs an event); any other goes through `optional`, as `take` does. `known`
  // counts the keys the payload has (null included).
  let known = raw.detected_objects === undefined ? 4 : 5;
  const id = raw.id;
  if (id !== undefined) {
    known++;
    if (typeof id === 'number' && Number.isSafeInteger(id)) event.id = id;
    else if (id !== null) optional(event, extra, Field.RecordId, 'id', id, problems);
  }
  const description = raw.event_description;
  if (description !== undefined) {
    known++;
    if (typeof description === 'string') event.eventDescription = description;
    else if (description !== null)
      optional(event, extra, Field.Description, 'event_description', description, problems);
  }
  const imageUrl = raw.image_url;
  if (imageUrl !== undefined) {
    known++;
    if (typeof imageUrl === 'string') event.imageUrl = imageUrl;
    else if (imageUrl !== null) optional(event, extra, Field.ImageUrl, 'image_url', imageUrl, problems);
  }
  const videoUrl = raw.video_url;
  if (videoUrl !== undefined) {
    known++;
    if (typeof videoUrl === 'string') event.videoUrl = videoUrl;
    else if (videoUrl !== null) optional(event, extra, Field.VideoUrl, 'video_url', videoUrl, problems);
  }
  const plate = raw.license_plate;
  if (plate !== undefined) {
    known++;
    if (typeof plate === 'string') event.licensePlate = plate;
    else if (plate !== null) optional(event, extra, Field.LicensePlate, 'license_plate', plate, problems);
  }
  const locationId = raw.location_id;
  if (locationId !== undefined) {
    known++;
    if (typeof locationId === 'number' && Number.isSafeInteger(locationId)) event.locationId = locationId;
    else if (locationId !== null)
      optional(event, extra, Field.LocationId, 'location_id', locationId, problems);
  }
  const cameraId = raw.camera_id;
  if (cameraId !== undefined) {
    known++;
    if (typeof cameraId === 'number' && Number.isSafeInteger(cameraId)) event.cameraId = cameraId;
    else if (cameraId !== null) optional(event, extra, Field.CameraId, 'camera_id', cameraId, problems);
  }
  const timezone = raw.timezone;
  if (timezone !== undefined) {
    known++;
    if (typeof timezone === 'string') event.timezone = timezone;
    else if (timezone !== null) optional(event, extra, Field.Timezone, 'timezone', timezone, problems);
  }
  known +=
    take(event, extra, Field.Vlm, 'vlm', raw.vlm, problems) +
    take(event, extra, Field.Coordinates, 'coordinates', raw.coordinates, problems);
  const note = raw.note;
  if (note !== undefined) {
    known++;
    if (typeof note === 'string') event.note = note;
    else if (note !== null) optional(event, extra, Field.Note, 'note', note, problems);
  }
  // Keys the interface does not describe go to `extra`, in payload order. Counting the keys tells
  // whether there are any, for less than looking each one up.
  if (keyCount(raw) !== known) {
    for (const key in raw) if (!isKnownKey(key)) setOwn(extra, key, raw[key]);
  }
  // Any field only the extended form sends, even null, makes the event extended.
  event.form =
    raw.id !== undefined ||
    raw.location_id !== undefined ||
    raw.camera_id !== undefined ||
    raw.timezone !== undefined ||
    raw.vlm !== undefined ||
    raw.coordinates !== undefined ||
    raw.note !== undefined
      ? 'extended'
      : 'basic';
  event.extra = extra;
  return event;
}

/** Keys a `for…in` visits: the payload's own, as JSON.parse made it. */
function keyCount(raw: Record<string, unknown>): number {
  let count = 0;
  for (const _ in raw) count++;
  return count;
}

/**
 * One optional field: set on the event, or kept raw in `extra` when unusable (a known field of
 * the wrong type). 1 when the payload has the key (null included), for the count of known keys.
 */
function take(
  event: ObservationEvent,
  extra: Record<string, unknown>,
  field: Field,
  key: string,
  value: unknown,
  problems: Problems,
): number {
  if (value === undefined) return 0;
  if (value !== null) optional(event, extra, field, key, value, problems);
  return 1;
}

/** A present, non-null optional field: set on the event, or kept raw in `extra` when unusable. */
function optional(
  event: ObservationEvent,
  extra: Record<string, unknown>,
  field: Field,
  key: string,
  value: unknown,
  problems: Problems,
): void {
  if (!readOptional(event, field, key, value, problems)) setOwn(extra, key, value);
}

/** Sets one optional field on the event; false when the value is unusable (it then goes to extra). */
function readOptional(
  event: ObservationEvent,
  field: Field,
  key: string,
  value: unknown,
  problems: Problems,
): boolean {
  switch (field) {
    case Field.RecordId:
    case Field.LocationId:
    case Field.CameraId: {
      const n =
        typeof value === 'number' && Number.isSafeInteger(value) ? value : readInteger(value, key, problems);
      if (n === undefined) return false;
      if (field === Field.RecordId) event.id = n;
      else if (field === Field.LocationId) event.locationId = n;
      else event.cameraId = n;
      return true;
    }
    case Field.Coordinates: {
      const geo = readGeo(value, problems);
      if (geo === undefined) return false;
      event.coordinates = geo;
      return true;
    }
    case Field.Vlm: {
      const vlm = readVlm(value, problems);
      if (vlm === undefined) return false;
      event.vlm = vlm;
      return true;
    }
    default: {
      const text = typeof value === 'string' ? value : readString(value, key, problems);
      if (text === undefined) return false;
      if (field === Field.Description) event.eventDescription = text;
      else if (field === Field.ImageUrl) event.imageUrl = text;
      else if (field === Field.VideoUrl) event.videoUrl = text;
      else if (field === Field.LicensePlate) event.licensePlate = text;
      else if (field === Field.Timezone) event.timezone = text;
      else event.note = text;
      return true;
    }
  }
}
