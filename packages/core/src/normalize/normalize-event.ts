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

/**
 * What a payload key is to the model (plain numbers: compared on every key of every event);
 * a key not listed is unknown and goes to `extra`.
 */
const Field = {
  Required: 0,
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

/** Fields only the extended form sends: any of them present (even null) makes the event extended. */
const lastExtendedOnly = Field.Vlm;

/**
 * What a payload key is to the model, or undefined for a key the interface does not describe.
 * Keys from JSON.parse and these literals are both interned, so each case is a pointer compare.
 */
function fieldOf(key: string): Field | undefined {
  switch (key) {
    case 'task_id':
    case 'event_id':
    case 'event_name':
    case 'timestamp':
    case 'detected_objects':
      return Field.Required;
    case 'id':
      return Field.RecordId;
    case 'event_description':
      return Field.Description;
    case 'image_url':
      return Field.ImageUrl;
    case 'video_url':
      return Field.VideoUrl;
    case 'location_id':
      return Field.LocationId;
    case 'camera_id':
      return Field.CameraId;
    case 'timezone':
      return Field.Timezone;
    case 'vlm':
      return Field.Vlm;
    case 'coordinates':
      return Field.Coordinates;
    case 'note':
      return Field.Note;
    case 'license_plate':
      return Field.LicensePlate;
    default:
      return undefined;
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
  return { event: normalizeInto(raw, problems), problems };
}

/** Problems of the events `readEvent` normalizes: nobody reads them, so one list serves all. */
const unread: Problems = [];

/**
 * `normalizeEvent` for the realtime hot path: the event, or undefined when the payload cannot
 * identify one, without a result object and a problem list per event. A caller that must say
 * why an event is unusable asks `normalizeEvent` for that one (the rare case).
 */
export function readEvent(raw: unknown): ObservationEvent | undefined {
  unread.length = 0;
  return normalizeInto(raw, unread);
}

function normalizeInto(raw: unknown, problems: Problems): ObservationEvent | undefined {
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
  const eventId = readRequiredInteger(raw.event_id, 'event_id', problems);
  const name = raw.event_name;
  let eventName: string | undefined;
  if (typeof name === 'string') eventName = name;
  else if (name === undefined || name === null) problems.push('event_name is missing');
  else eventName = readString(name, 'event_name', problems);
  const timestamp = raw.timestamp;
  const occurredAt = readTimestamp(timestamp, problems);
  if (taskId === undefined || eventId === undefined || eventName === undefined || occurredAt === undefined) {
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
  // Every event gets these fields in this order (one object shape); `form` is settled below.
  const event: ObservationEvent = {
    form: 'basic',
    taskId,
    eventId,
    eventName,
    timestamp: typeof timestamp === 'string' ? timestamp : String(timestamp),
    occurredAt,
    objects,
    objectNames,
    maxConfidence,
    hasWarning,
    extra: {},
  };
  const extra = event.extra;
  let extended = false;

  // One pass over the keys: the form, the optional fields in payload order, and `extra`. A known
  // field of the wrong type keeps its raw value in `extra`. (`for…in` over a parsed payload reads
  // each value by the key's slot, the cheapest way through an object whose shape varies.)
  for (const key in raw) {
    const field = fieldOf(key);
    if (field === Field.Required) continue;
    const value = raw[key];
    if (field === undefined) {
      setOwn(extra, key, value);
      continue;
    }
    if (field <= lastExtendedOnly || field >= Field.Timezone) extended = true;
    if (value === undefined || value === null) continue;
    if (!readOptional(event, field, key, value, problems)) setOwn(extra, key, value);
  }
  // Set once the event has all its fields: one store on one shape, not one per shape on the way.
  if (extended) event.form = 'extended';
  return event;
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
