import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from './describe-value.js';

function parseWhole(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
    const n = Number(value.trim());
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** A page size: a whole number from 1 to `max` (when given). */
export function parseLimit(value: unknown, field: string, max?: number): number {
  const n = parseWhole(value);
  if (n === undefined || n < 1 || (max !== undefined && n > max)) {
    const range = max === undefined ? 'a whole number of at least 1' : `a whole number from 1 to ${max}`;
    throw new ValidationError(field, describeValue(value), range);
  }
  return n;
}

/** A start position: a whole number of at least 0. */
export function parseOffset(value: unknown, field: string): number {
  const n = parseWhole(value);
  if (n === undefined || n < 0) {
    throw new ValidationError(field, describeValue(value), 'a whole number of at least 0');
  }
  return n;
}
