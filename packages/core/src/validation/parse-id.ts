import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from './describe-value.js';

/** A positive whole number, or a string of digits. */
export type IdInput = number | string;

const allowed = 'a positive whole number (1, 2, 3, …)';
const digits = /^[1-9][0-9]*$/;

/**
 * Accepts a positive safe integer, as a number or as a string of digits (surrounding spaces
 * ignored). Anything else (`"1; drop"`, `"../x"`, `1.5`, `-3`, `""`) is refused before it can
 * reach a URL.
 */
export function parseId(value: unknown, field: string): number {
  let result: number | undefined;
  if (typeof value === 'number') {
    result = value;
  } else if (typeof value === 'string') {
    const trimmed = value.trim();
    if (digits.test(trimmed)) result = Number(trimmed);
  }
  if (result === undefined || !Number.isSafeInteger(result) || result < 1) {
    throw new ValidationError(field, describeValue(value), allowed);
  }
  return result;
}
