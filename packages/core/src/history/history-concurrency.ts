import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from '../validation/describe-value.js';

/**
 * History pages read ahead by default. Over a real network a page costs a round trip; with one
 * page ahead a reader can at best hide its own work behind it, with a few it keeps the line busy.
 */
export const defaultHistoryConcurrency = 4;
/**
 * Without an explicit `concurrency`, the pages ahead hold at most this many events (never less
 * than one page): 4 pages of 100 extended events, but 1 page of 10,000 basic ones, whose own
 * processing already hides a round trip and whose window would multiply memory (~40 MB a page).
 */
export const defaultHistoryItemsAhead = 1_000;
export const maxHistoryConcurrency = 16;

/** The read-ahead window of iteratePages for a `concurrency` option (validated). */
export function historyWindow(value: unknown): { concurrency: number; itemsAhead?: number } {
  if (value === undefined)
    return { concurrency: defaultHistoryConcurrency, itemsAhead: defaultHistoryItemsAhead };
  return { concurrency: parseHistoryConcurrency(value) };
}

/** Validates the `concurrency` option of the history readers (pages read ahead). */
export function parseHistoryConcurrency(value: unknown): number {
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
