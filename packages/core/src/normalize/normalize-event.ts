import type { GeoCoordinates, NormalizeResult, ObservationEvent } from '../model/observation-event.js';
import { parseIsoTime } from '../validation/iso-time.js';
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
import { readVlm } from './vlm.js';

const basicFields = new Set([
  'task_id',
  'event_id',
  'event_name',
  'event_description',
  'timestamp',
  'image_url',
  'video_url',
  'license_plate',
  'detected_objects',
]);
const extendedOnlyFields = new Set([
  'id',
  'location_id',
  'camera_id',
  'timezone',
  'vlm',
  'coordinates',
  'note',
]);

function readTimestamp(
  value: unknown,
  problems: Problems,
): { timestamp: string; occurredAt: Date } | undefined {
  if (typeof value === 'string') {
    const date = parseIsoTime(value);
    if (date) return { timestamp: value, occurredAt: date };
    problems.push(`timestamp is not an ISO 8601 time: ${sample(value)}`);
    return undefined;
  }
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    // Epoch seconds or milliseconds; 1e11 s is year 5138, so larger values must be ms.
    const date = new Date(value < 1e11 ? value * 1000 : value);
    if (!Number.isNaN(date.getTime())) {
      problems.push('timestamp was a number, read as epoch time');
      return { timestamp: String(value), occurredAt: date };
    }
  }
  problems.push(value === undefined ? 'timestamp is missing' : `timestamp is not a time: ${sample(value)}`);
  return undefined;
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

function required<T>(
  raw: Record<string, unknown>,
  key: string,
  read: (v: unknown, name: string, p: Problems) => T | undefined,
  problems: Problems,
): T | undefined {
  if (!(key in raw) || raw[key] === undefined || raw[key] === null) {
    problems.push(`${key} is missing`);
    return undefined;
  }
  return read(raw[key], key, problems);
}

/**
 * Turns a basic- or extended-form event (as received over WebSocket or from history) into one
 * `ObservationEvent`. Pure and total: it never throws. `event` is undefined only when the payload
 * cannot identify an event (not an object, or no usable task_id, event_id, event_name or
 * timestamp); `problems` lists everything that was missing, odd or coerced.
 */
export function normalizeEvent(raw: unknown): NormalizeResult {
  const problems: Problems = [];
  try {
    return normalizeUnsafe(raw, problems);
  } catch (error) {
    // Defensive: a getter or proxy in a host-made object could still throw.
    problems.push(`event could not be read: ${error instanceof Error ? error.message : sample(error)}`);
    return { event: undefined, problems };
  }
}

function normalizeUnsafe(raw: unknown, problems: Problems): NormalizeResult {
  if (!isRecord(raw)) {
    problems.push(`event is not an object: ${sample(raw)}`);
    return { event: undefined, problems };
  }
  const taskId = required(raw, 'task_id', readInteger, problems);
  const eventId = required(raw, 'event_id', readInteger, problems);
  const eventName = required(raw, 'event_name', readString, problems);
  const time = 'timestamp' in raw ? readTimestamp(raw.timestamp, problems) : undefined;
  if (!('timestamp' in raw)) problems.push('timestamp is missing');
  if (taskId === undefined || eventId === undefined || eventName === undefined || time === undefined) {
    return { event: undefined, problems };
  }

  const keys = Object.keys(raw);
  let form: 'basic' | 'extended' = 'basic';
  for (const key of keys) {
    if (extendedOnlyFields.has(key)) {
      form = 'extended';
      break;
    }
  }
  const objects = readDetectedObjects(raw.detected_objects, problems);
  const objectNames: string[] = [];
  let maxConfidence = 0;
  let hasWarning = false;
  for (const object of objects) {
    if (object.name !== '' && !objectNames.includes(object.name)) objectNames.push(object.name);
    if (object.confidence > maxConfidence) maxConfidence = object.confidence;
    if (object.warning) hasWarning = true;
  }
  const event: ObservationEvent = {
    form,
    taskId,
    eventId,
    eventName,
    timestamp: time.timestamp,
    occurredAt: time.occurredAt,
    objects,
    objectNames,
    maxConfidence,
    hasWarning,
    extra: {},
  };
  const extra = event.extra;

  // Optional fields: a known field of the wrong type keeps its raw value in `extra`.
  for (const key of keys) {
    const value = raw[key];
    if (!optionalFields.has(key)) {
      if (!basicFields.has(key)) setOwn(extra, key, value);
      continue;
    }
    if (value === undefined || value === null) continue;
    let ok = true;
    switch (key) {
      case 'id':
      case 'location_id':
      case 'camera_id': {
        const n = readInteger(value, key, problems);
        if (n === undefined) ok = false;
        else if (key === 'id') event.id = n;
        else if (key === 'location_id') event.locationId = n;
        else event.cameraId = n;
        break;
      }
      case 'coordinates': {
        const geo = readGeo(value, problems);
        if (geo) event.coordinates = geo;
        else ok = false;
        break;
      }
      case 'vlm': {
        const vlm = readVlm(value, problems);
        if (vlm) event.vlm = vlm;
        else ok = false;
        break;
      }
      default: {
        const text = readString(value, key, problems);
        if (text === undefined) ok = false;
        else setText(event, key, text);
      }
    }
    if (!ok) setOwn(extra, key, value);
  }
  return { event, problems };
}

const optionalFields = new Set([
  'id',
  'event_description',
  'image_url',
  'video_url',
  'license_plate',
  'location_id',
  'camera_id',
  'timezone',
  'note',
  'coordinates',
  'vlm',
]);

function setText(event: ObservationEvent, key: string, text: string): void {
  switch (key) {
    case 'event_description':
      event.eventDescription = text;
      break;
    case 'image_url':
      event.imageUrl = text;
      break;
    case 'video_url':
      event.videoUrl = text;
      break;
    case 'license_plate':
      event.licensePlate = text;
      break;
    case 'timezone':
      event.timezone = text;
      break;
    case 'note':
      event.note = text;
      break;
  }
}
