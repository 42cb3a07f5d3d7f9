import type { Logger } from '../client/ports.js';

/** One fetched page and the page size that was in force when it was asked for. */
export interface Page<T> {
  items: T[];
  limitUsed: number;
}

export type FetchPage<T> = (offset: number, signal: AbortSignal) => Promise<Page<T>>;

/** Identical pages in a row before paging concludes the server ignores `offset`. */
const maxRepeatedPages = 20;

function fingerprint(items: unknown[]): string {
  try {
    return `${items.length}:${JSON.stringify(items[0])}:${JSON.stringify(items[items.length - 1])}`;
  } catch {
    return String(items.length);
  }
}

/**
 * Yields page after page, asking for page n+1 while the caller works on page n (at most two
 * pages in memory). The stop rules do not depend on the server's ordering: an empty or short
 * page ends it. A page identical to the previous one is not yielded again, but it does not end
 * the paging either: a newest-first range that grows while it is read shifts by whole pages, so
 * the same page can legitimately come back and the older events are still ahead. Only a long run
 * of identical pages means a server that ignores `offset`, and ends it with a warning.
 * Leaving the loop early (break, throw, abort) cancels the page in flight.
 */
export async function* iteratePages<T>(
  fetchPage: FetchPage<T>,
  startOffset: number,
  signal: AbortSignal | undefined,
  logger: Logger,
): AsyncGenerator<T[], void, undefined> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  let offset = startOffset;
  let pending: Promise<Page<T>> | undefined = fetchPage(offset, controller.signal);
  let previous: string | undefined;
  let repeats = 0;
  try {
    while (pending) {
      const page: Page<T> = await pending;
      pending = undefined;
      const print = fingerprint(page.items);
      const repeated = page.items.length > 0 && print === previous;
      repeats = repeated ? repeats + 1 : 0;
      if (repeats >= maxRepeatedPages) {
        logger.warn(
          'the service returned the same page again and again; it seems to ignore offset, paging stops',
          {
            offset,
            repeats,
          },
        );
        return;
      }
      previous = print;
      const last = page.items.length === 0 || page.items.length < page.limitUsed;
      if (!last) {
        offset += page.items.length;
        pending = fetchPage(offset, controller.signal);
        // Rejections are handled when awaited; this only keeps an abandoned prefetch quiet.
        pending.catch(() => undefined);
      }
      if (page.items.length > 0 && !repeated) yield page.items;
    }
  } finally {
    controller.abort();
    signal?.removeEventListener('abort', onAbort);
  }
}
