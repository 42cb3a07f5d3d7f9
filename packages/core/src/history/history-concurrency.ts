import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from '../validation/describe-value.js';

/**
 * History pages read ahead by default. Over a real network a page costs a round trip; with one
 * page ahead a reader can at best hide its own work behind it, with a few it keeps the line busy.
 * Four full extended pages are ~350 KB, four basic ones ~35 MB: memory stays bounded by the window.
 */
export const defaultHistoryConcurrency = 4;
export const maxHistoryConcurrency = 16;

/** Validates the `concurrency` option of the history readers (pages read ahead). */
export function parseHistoryConcurrency(value: unknown): number {
  if (value === undefined) return defaultHistoryConcurrency;
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value < 1 ||
    value > maxHistoryConcurrency
  ) {
    throw new ValidationError(
      'concurrency',
      describeValue(value),
      `a whole number from 1 to ${maxHistoryConcurrency} (pages read ahead; default ${defaultHistoryConcurrency})`,
    );
  }
  return value;
}
