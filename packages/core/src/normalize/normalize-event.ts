import type { GeoCoordinates, NormalizeResult, ObservationEvent } from '../model/observation-event.js';
import { parseIsoTime } from '../validation/iso-time.js';
import { readDetectedObjects } from './detected-objects.js';
import { isRecord, type Problems, readInteger, readNumber, readString, sample } from './read-fields.js';
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

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // A payload key "__proto__" must stay a plain entry instead of replacing the prototype.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

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
  const form = keys.some((k) => extendedOnlyFields.has(k)) ? 'extended' : 'basic';
  const objects = readDetectedObjects(raw.detected_objects, problems);
  const objectNames = [...new Set(objects.map((o) => o.name).filter((n) => n !== ''))];
  const event: ObservationEvent = {
    form,
    taskId,
    eventId,
    eventName,
    timestamp: time.timestamp,
    occurredAt: time.occurredAt,
    objects,
    objectNames,
    maxConfidence: objects.reduce((max, o) => Math.max(o.confidence, max), 0),
    hasWarning: objects.some((o) => o.warning),
    extra: {},
  };

  const optional = (key: string, apply: (value: unknown) => boolean): void => {
    const value = raw[key];
    if (value === undefined || value === null) return;
    // A known field of the wrong type keeps its raw value in `extra`, so nothing is lost.
    if (!apply(value)) setOwn(event.extra, key, value);
  };
  const text = (key: string, set: (v: string) => void) =>
    optional(key, (v) => {
      const s = readString(v, key, problems);
      if (s !== undefined) set(s);
      return s !== undefined;
    });
  const integer = (key: string, set: (v: number) => void) =>
    optional(key, (v) => {
      const n = readInteger(v, key, problems);
      if (n !== undefined) set(n);
      return n !== undefined;
    });

  integer('id', (v) => {
    event.id = v;
  });
  text('event_description', (v) => {
    event.eventDescription = v;
  });
  text('image_url', (v) => {
    event.imageUrl = v;
  });
  text('video_url', (v) => {
    event.videoUrl = v;
  });
  text('license_plate', (v) => {
    event.licensePlate = v;
  });
  integer('location_id', (v) => {
    event.locationId = v;
  });
  integer('camera_id', (v) => {
    event.cameraId = v;
  });
  text('timezone', (v) => {
    event.timezone = v;
  });
  text('note', (v) => {
    event.note = v;
  });
  optional('coordinates', (v) => {
    const geo = readGeo(v, problems);
    if (geo) event.coordinates = geo;
    return geo !== undefined;
  });
  optional('vlm', (v) => {
    const vlm = readVlm(v, problems);
    if (vlm) event.vlm = vlm;
    return vlm !== undefined;
  });

  for (const key of keys) {
    if (!basicFields.has(key) && !extendedOnlyFields.has(key)) setOwn(event.extra, key, raw[key]);
  }
  return { event, problems };
}
