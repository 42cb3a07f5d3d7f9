import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from './describe-value.js';
import { parseIsoTime, toWireTime } from './iso-time.js';

/** A point in time: a Date, an ISO 8601 string (no zone = UTC) or epoch milliseconds. */
export type TimeInput = Date | string | number;

const allowed =
  'a Date, an ISO 8601 time ("2024-05-01T08:30:00Z", "2024-05-01T08:30:00", "2024-05-01T10:30:00+02:00") or epoch milliseconds';
// Years 0000-9999 only: the wire shape has four year digits.
const minMs = Date.parse('0000-01-01T00:00:00Z');
const maxMs = Date.parse('9999-12-31T23:59:59Z');

/** Parses a time input to a Date, or throws a ValidationError naming `field`. */
export function parseTimeToDate(value: unknown, field: string): Date {
  let date: Date | undefined;
  if (value instanceof Date) {
    date = new Date(value.getTime());
  } else if (typeof value === 'number') {
    if (Number.isFinite(value)) date = new Date(value);
  } else if (typeof value === 'string') {
    const trimmed = value.trim();
    date = /^\d+$/.test(trimmed) ? new Date(Number(trimmed)) : parseIsoTime(trimmed);
  }
  const time = date?.getTime();
  if (date === undefined || time === undefined || Number.isNaN(time) || time < minMs || time > maxMs) {
    throw new ValidationError(field, describeValue(value), allowed);
  }
  return date;
}

/**
 * Accepts a Date, an ISO string with or without zone (no zone = UTC) or epoch ms, and returns the
 * spec's `YYYY-MM-DDThh:mm:ss` shape in UTC. Fractions of a second are cut off.
 */
export function parseTime(value: unknown, field: string): string {
  return toWireTime(parseTimeToDate(value, field));
}
