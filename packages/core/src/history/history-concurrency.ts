import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from '../validation/describe-value.js';

/**
 * History pages requested at once by default: one. The next page is asked for at the offset the
 * last answer proved while the caller works on the current one, so a read costs its pages plus
 * the empty page that ends it, whatever sizes the service's pages have. Reading further ahead is
 * offset arithmetic on a guess (that pages come back full), paid for past the end: opt-in.
 */
export const defaultHistoryConcurrency = 1;
/**
 * With an explicit `concurrency`, the pages ahead hold at most this many events (never less than
 * one page): 4 pages of 100 extended events, but 1 page of 10,000 basic ones, whose own
 * processing already hides a round trip and whose window would multiply memory (~40 MB a page).
 */
export const historyItemsAhead = 1_000;
export const maxHistoryConcurrency = 16;

/** The read-ahead window of iteratePages for a `concurrency` option (validated). */
export function historyWindow(value: unknown): { concurrency: number; itemsAhead?: number } {
  if (value === undefined) return { concurrency: defaultHistoryConcurrency };
  return { concurrency: parseHistoryConcurrency(value), itemsAhead: historyItemsAhead };
}

/** Validates the `concurrency` option of the history readers (pages requested at once). */
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
      `a whole number from 1 to ${maxHistoryConcurrency} (pages requested at once; default ${defaultHistoryConcurrency})`,
    );
  }
  return value;
}
