import { parseIsoTime } from '../validation/iso-time.js';
import { type Problems, sample } from './read-fields.js';

/**
 * Milliseconds of a `timestamp` as the service may send it (ISO string, or epoch seconds or
 * milliseconds as a number or a digit string), or undefined. For identities and stored positions:
 * the same moment must give the same key whichever shape it came in.
 */
export function timestampMs(value: unknown): number | undefined {
  if (typeof value === 'string') {
    // The wire shape without a Date: a history walk reads every row's second this way.
    const wire = parseWireTime(value);
    if (wire !== undefined) return wire;
    const date = parseIsoTime(value);
    if (date) return date.getTime();
    if (/^\d+(\.\d+)?$/.test(value)) return epochMs(Number(value));
    return undefined;
  }
  if (typeof value === 'number') return epochMs(value);
  return undefined;
}

function epochMs(value: number): number | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  // Epoch seconds or milliseconds; 1e11 s is year 5138, so larger values must be ms.
  const ms = value < 1e11 ? value * 1000 : value;
  return Number.isNaN(new Date(ms).getTime()) ? undefined : ms;
}

/**
 * Reads the event's `timestamp`: an ISO 8601 string, or (reported) epoch seconds/milliseconds.
 * The event keeps the value as sent (`String(value)`) beside this time.
 */
export function readTimestamp(value: unknown, problems: Problems): Date | undefined {
  if (typeof value === 'string') {
    const wire = parseWireTime(value);
    if (wire !== undefined) return new Date(wire);
    const date = parseIsoTime(value);
    if (date) return date;
    problems.push(`timestamp is not an ISO 8601 time: ${sample(value)}`);
    return undefined;
  }
  if (typeof value === 'number') {
    const ms = epochMs(value);
    if (ms !== undefined) {
      problems.push('timestamp was a number, read as epoch time');
      return new Date(ms);
    }
  }
  problems.push(value === undefined ? 'timestamp is missing' : `timestamp is not a time: ${sample(value)}`);
  return undefined;
}

const zero = 48;

function digits2(text: string, at: number): number {
  const a = text.charCodeAt(at) - zero;
  const b = text.charCodeAt(at + 1) - zero;
  // NaN (past the end) and non-digits both fail the range checks.
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** The last wire time read and its milliseconds: a burst of events shares a few seconds. */
let lastText = '';
let lastMs = 0;

/**
 * The milliseconds of the shape the service actually sends, `YYYY-MM-DDThh:mm:ss` with an
 * optional `Z`, read without a regular expression: every event goes through here, and this is most
 * of them. Anything else (fractions, offsets, spaces, date only) returns undefined and goes to the
 * general parser, which gives the same result for this shape. A number, not a Date: making a Date
 * costs about three times the parse, and only the event's `occurredAt` needs one.
 */
function parseWireTime(text: string): number | undefined {
  if (text === lastText) return lastMs;
  const length = text.length;
  if (length !== 19 && !((length === 20 && text.charCodeAt(19) === 90) /* Z */)) return undefined;
  if (
    text.charCodeAt(4) !== 45 /* - */ ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 /* T */ ||
    text.charCodeAt(13) !== 58 /* : */ ||
    text.charCodeAt(16) !== 58
  ) {
    return undefined;
  }
  const high = digits2(text, 0);
  const low = digits2(text, 2);
  const month = digits2(text, 5);
  const day = digits2(text, 8);
  const hour = digits2(text, 11);
  const minute = digits2(text, 14);
  const second = digits2(text, 17);
  // Years below 100 need the general parser's care (Date.UTC maps them to 19xx).
  if (high < 1 || low < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23) return undefined;
  if (minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  const year = high * 100 + low;
  if (day > 28 && day > daysInMonth(year, month)) return undefined;
  lastMs = Date.UTC(year, month - 1, day, hour, minute, second);
  lastText = text;
  return lastMs;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
