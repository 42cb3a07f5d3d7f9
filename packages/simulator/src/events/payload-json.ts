/**
 * Hand-written JSON for the two payload forms, byte-for-byte what JSON.stringify(basicPayload(e))
 * and JSON.stringify(extendedPayload(e)) produce (a test holds it to that).
 *
 * Why: the live pump must serialize ≥ 50,000 events/s, and most of JSON.stringify's time on an
 * event goes into printing its ~30 fractional numbers with the shortest round-trip algorithm.
 * The generator rounds every fraction to at most 6 decimals, so they print from integers here.
 */
import { epochSecondsOf } from '../time-format.js';
import type { DetectedObject, SimulatedEvent, VlmResult } from '../types.js';

const quoted = new Map<string, string>();

/** JSON string literal; the few distinct short strings (names, zones, keys) are memoized. */
function str(value: string): string {
  if (value.length > 64) return JSON.stringify(value);
  let text = quoted.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    if (quoted.size < 4096) quoted.set(value, text);
  }
  return text;
}

/** '.xxxx' without trailing zeros for every 4-decimal fraction (0 → ''): most numbers of an event. */
const FRACTION4: string[] = Array.from({ length: 10_000 }, (_, k) =>
  k === 0 ? '' : `.${String(k).padStart(4, '0').replace(/0+$/, '')}`,
);

/** The same digits JSON.stringify prints, from integers when the value has ≤ 6 decimals. */
export function num(value: number): string {
  if (Number.isInteger(value) || !Number.isFinite(value) || Math.abs(value) >= 1e9)
    return JSON.stringify(value);
  const negative = value < 0;
  const magnitude = negative ? -value : value;
  // Both sides of each check are the double nearest to the same decimal, so equality is exact.
  const scaled4 = Math.round(magnitude * 1e4);
  if (scaled4 / 1e4 === magnitude) {
    const whole = Math.floor(scaled4 / 1e4);
    return `${negative ? '-' : ''}${whole}${FRACTION4[scaled4 - whole * 1e4]}`;
  }
  const scaled = Math.round(magnitude * 1e6);
  if (scaled / 1e6 !== magnitude) return JSON.stringify(value);
  const whole = Math.floor(scaled / 1e6);
  let fraction = String(scaled - whole * 1e6).padStart(6, '0');
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === 48) end--;
  fraction = fraction.slice(0, end);
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

function objects(list: readonly DetectedObject[]): string {
  if (list.length === 0) return '[]';
  let out = '[';
  for (let i = 0; i < list.length; i++) {
    const o = list[i] as DetectedObject;
    const [cx, cy, w, h] = o.coordinates;
    if (i > 0) out += ',';
    // The generator's object ids are digits only: nothing to escape, nothing worth memoizing.
    out += `{"object_id":"${o.object_id}","object_name":${str(o.object_name)},"coordinates":[${num(cx)},${num(cy)},${num(w)},${num(h)}],"confidence_score":${num(o.confidence_score)},"warning":${o.warning}}`;
  }
  return `${out}]`;
}

function value(item: unknown): string {
  if (typeof item === 'number') return num(item);
  if (typeof item === 'string') return str(item);
  if (Array.isArray(item)) return `[${item.map(value).join(',')}]`;
  return JSON.stringify(item) ?? 'null';
}

function vlm(result: VlmResult | null): string {
  if (result === null) return 'null';
  let out = '{';
  let first = true;
  for (const key in result) {
    const item = result[key];
    if (item === undefined) continue;
    out += `${first ? '' : ','}${str(key)}:${value(item)}`;
    first = false;
  }
  return `${out}}`;
}

/** `numericTimestamps`: `timestamp` as Unix seconds (a number), as some deployments send it. */
function head(e: SimulatedEvent, numericTimestamps: boolean): string {
  const timestamp = numericTimestamps ? String(epochSecondsOf(e.timestamp)) : str(e.timestamp);
  return `"task_id":${e.task_id},"event_id":${e.event_id},"event_name":${str(e.event_name)},"event_description":${str(e.event_description)},"timestamp":${timestamp},"image_url":${JSON.stringify(e.image_url)},"video_url":${JSON.stringify(e.video_url)},"detected_objects":${objects(e.detected_objects)}`;
}

export function basicJson(e: SimulatedEvent, numericTimestamps = false): string {
  return e.license_plate === undefined
    ? `{${head(e, numericTimestamps)}}`
    : `{${head(e, numericTimestamps)},"license_plate":${JSON.stringify(e.license_plate)}}`;
}

export function extendedJson(e: SimulatedEvent, numericTimestamps = false): string {
  return `{"id":${e.id},${head(e, numericTimestamps)},"location_id":${e.location_id},"camera_id":${e.camera_id},"timezone":${str(e.timezone)},"vlm":${vlm(e.vlm)},"coordinates":{"latitude":${num(e.coordinates.latitude)},"longitude":${num(e.coordinates.longitude)}},"note":${str(e.note)}}`;
}
