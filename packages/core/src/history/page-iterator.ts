import type { Logger } from '../ports.js';

/** One fetched page and the page size that was in force when it was asked for. */
export interface Page<T> {
  items: T[];
  limitUsed: number;
}

/**
 * Told by a fetch that its page's answer is in, with the page's length as counted before it is
 * parsed (a guess, `countArrayElements`, which the parsed page confirms or refutes; undefined when
 * it could not count). Resolves once the caller wants the page: the fetch parses it only then, so
 * a page that came early waits as its bytes, not as parsed rows. By then the next page may have
 * been asked for on the count. Rejects when the page is dropped.
 */
export type PageArrived = (count: number | undefined) => Promise<void>;

/** Fetches the page at `offset`; `arrived`, when the fetch can tell that before it parses. */
export type FetchPage<T> = (offset: number, signal: AbortSignal, arrived: PageArrived) => Promise<Page<T>>;

/** How far ahead iteratePages may read. */
export interface PageWindowOptions {
  /**
   * Pages requested at once (default 1: the next page, at the offset the last answer proved,
   * while the caller works on the current one). More than one reads ahead at offsets guessed
   * from the full page size, and only while pages come back full: past the end that costs up to
   * this many requests more, which is why it is not the default.
   */
  concurrency?: number;
  /**
   * The size every full page will have, when it is known before the first answer. Without it the
   * first page is read alone and its `limitUsed` sets the stride (an `auto` client learns the
   * service's maximum from that first answer, once).
   */
  pageSize?: number;
  /**
   * Pages starting this many items past the start offset are asked for only once the caller wants
   * more than the pages before them (a caller that stops at `max` asks for none of them), one at a
   * time.
   */
  speculateWithin?: number;
  /**
   * Caps the window so that the pages ahead hold about this many items at most (never less than
   * one page): large pages take long enough to consume that one page ahead hides a round trip,
   * and a window of them would only multiply memory.
   */
  itemsAhead?: number;
  /**
   * Lets the event loop run (`Clock.turn`) after pages were asked for and before the page in hand
   * is handed out: a transport may write a request only on a later turn (undici does, on a reused
   * socket), and the caller's synchronous work on the page would hold it back until the page was
   * consumed, so the service would not be working on the next page meanwhile.
   */
  turn?: () => Promise<void>;
}

/** Identical pages in a row before paging concludes the server ignores `offset`. */
const maxRepeatedPages = 20;

/**
 * Every row of a page, serialized: only two answers with the same rows in the same order are the
 * same page. Ends alone are not enough: a service that lists the ties of a busy second in a new
 * order on every request can begin and end the next page with the same two rows by chance, and
 * that page, taken for a repeat, was skipped with every row between them (the likely cause of a
 * Node-RED storm's loss in CI: 23 events of one busy second, basic form).
 */
function fingerprint(items: unknown[]): string {
  try {
    return `${items.length}:${JSON.stringify(items)}`;
  } catch {
    return String(items.length);
  }
}

/** A page's rows and ends, kept to tell whether the next page is the same again. */
interface PageEnds {
  length: number;
  first: unknown;
  last: unknown;
  items: unknown[];
  /** Its first and last rows serialized, once made. */
  endsPrint?: string;
  /** Its fingerprint, once made. */
  print?: string;
}

function endsOf(items: unknown[]): PageEnds {
  return { length: items.length, first: items[0], last: items[items.length - 1], items };
}

/** A row's record id, when it has one. */
function recordId(row: unknown): unknown {
  return row !== null && typeof row === 'object' ? (row as { id?: unknown }).id : undefined;
}

/**
 * Whether two pages hold the same rows in the same order. Pages of another length, or whose first
 * or last rows differ, differ without serializing the page (a page that moved on, nearly every
 * page); the rest (offset ignored, a range that grew by a page, or ends alike by chance) are
 * compared row by row through their fingerprints.
 */
function samePage(a: PageEnds, b: PageEnds): boolean {
  if (a.length !== b.length) return false;
  const firstId = recordId(a.first);
  const lastId = recordId(a.last);
  if (typeof firstId === 'number' && typeof lastId === 'number') {
    if (firstId !== recordId(b.first) || lastId !== recordId(b.last)) return false;
  }
  a.endsPrint ??= fingerprint([a.first, a.last]);
  b.endsPrint ??= fingerprint([b.first, b.last]);
  if (a.endsPrint !== b.endsPrint) return false;
  a.print ??= fingerprint(a.items);
  b.print ??= fingerprint(b.items);
  return a.print === b.print;
}

interface InFlight<T> {
  offset: number;
  controller: AbortController;
  page: Promise<Page<T>>;
  /** Resolved once the caller wants the page (or it was dropped): its parse waits for that. */
  wanted: Promise<void>;
  want: () => void;
  /** Its length as counted before it was parsed, when the next page was asked for on that count. */
  counted?: number;
}

/**
 * Yields page after page in offset order, and ends only on evidence: an empty page. A short page
 * (fewer items than asked for) proves nothing, since deployments cap pages below what is asked
 * (by count or by size in bytes, so the length can change from page to page) without saying so;
 * the next page, at the offset the short one proved, is asked for right away. With the default of
 * one page in flight, a read costs its pages plus one request: the empty page at the end.
 *
 * With `concurrency` above 1, pages are read ahead at offsets guessed from the full page size
 * while pages come back full (at most `concurrency` + 1 pages in memory); an answer that proves
 * the guess wrong (a page of another size) drops them, and from then on offsets are read one by
 * one as each answer proves them.
 *
 * A fetch that tells when its answer is in (a history page) parses it only once the caller wants
 * it, so a page ahead waits as bytes, and tells the rows it counted: with nothing else in flight
 * the next page is then asked for at the offset the count gives, so the service works on it while
 * the page is parsed. A count the parsed page refutes drops that request like a wrong guess, and
 * ends asking on counts for the rest of the read.
 *
 * The stop rule does not depend on the server's ordering. A page identical to the previous one
 * is not yielded again, but it does not end the paging either: a newest-first range that grows
 * while it is read shifts by whole pages, so the same page can legitimately come back and the
 * older events are still ahead. Only a long run of identical pages means a server that ignores
 * `offset`, and ends it with a warning. A failed page surfaces when its turn comes, after every
 * page before it was yielded. Leaving the loop early (break, throw, abort) cancels every page in
 * flight.
 */
export async function* iteratePages<T>(
  fetchPage: FetchPage<T>,
  startOffset: number,
  signal: AbortSignal | undefined,
  logger: Logger,
  options: PageWindowOptions = {},
): AsyncGenerator<T[], void, undefined> {
  const concurrency = options.concurrency ?? 1;
  const speculationEnd = startOffset + (options.speculateWithin ?? Number.POSITIVE_INFINITY);
  const window: InFlight<T>[] = [];
  // The size of a full page, when known: the stride of the pages read ahead.
  let stride = options.pageSize;
  // Reading ahead at guessed offsets, until a page comes back short.
  let speculate = concurrency > 1;
  // Offset of the next page to ask for; undefined while only the page in flight can tell.
  let nextOffset: number | undefined = startOffset;

  // Ends every page handed out (caller's abort, leaving the loop); each page also has its own
  // controller, for the pages ahead that an answer proved wrong.
  const all = new AbortController();
  const abortAll = () => {
    for (const entry of window.splice(0)) {
      entry.controller.abort();
      entry.want();
    }
  };
  const onAbort = () => all.abort(signal?.reason);
  // Whether pages were asked for since a page was last handed out.
  let asked = false;
  // Whether pages' counts held so far: the first a parsed page refutes ends asking on counts.
  let countsHold = true;
  const request = (offset: number) => {
    const controller = new AbortController();
    const pageSignal = AbortSignal.any([all.signal, controller.signal]);
    const entry = { offset, controller } as InFlight<T>;
    entry.wanted = new Promise<void>((resolve) => {
      entry.want = resolve;
    });
    entry.page = fetchPage(offset, pageSignal, async (count) => {
      await entry.wanted;
      pageSignal.throwIfAborted();
      if (count !== undefined && askOnCount(entry, count) && options.turn) await options.turn();
    });
    // Rejections are handled when awaited; this only keeps an abandoned page quiet.
    entry.page.catch(() => undefined);
    window.push(entry);
  };
  // The page the caller wants, alone in flight, was counted before its parse: the next page is
  // asked for at the offset the count gives, and sent (a turn of the event loop) before the parse,
  // so the service works on it meanwhile. Where the stride had guessed another offset, the answer
  // will tell.
  const askOnCount = (entry: InFlight<T>, count: number): boolean => {
    const offset = entry.offset + count;
    if (!countsHold || count === 0 || window.length !== 1 || window[0] !== entry) return false;
    if (offset >= speculationEnd || (nextOffset !== undefined && nextOffset !== offset)) return false;
    entry.counted = count;
    request(offset);
    nextOffset = speculate && stride !== undefined ? offset + stride : undefined;
    return true;
  };
  const windowSize = () =>
    options.itemsAhead === undefined || stride === undefined || stride <= 0
      ? Math.max(1, concurrency)
      : Math.max(1, Math.min(concurrency, Math.floor(options.itemsAhead / stride)));
  // `ahead`: while the caller has not yet seen the page in hand.
  const fill = (ahead: boolean) => {
    while (nextOffset !== undefined && window.length < windowSize()) {
      if ((ahead || window.length > 0) && nextOffset >= speculationEnd) break;
      request(nextOffset);
      asked = true;
      nextOffset = speculate && stride !== undefined ? nextOffset + stride : undefined;
    }
  };

  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  let previous: PageEnds | undefined;
  let repeats = 0;
  try {
    fill(false);
    // The page awaited stays in the window until it settled, so an abort reaches it too.
    for (let head = window[0]; head; head = window[0]) {
      head.want();
      const page: Page<T> = await head.page;
      window.shift();
      const ends = endsOf(page.items);
      const repeated = page.items.length > 0 && previous !== undefined && samePage(ends, previous);
      repeats = repeated ? repeats + 1 : 0;
      if (repeats >= maxRepeatedPages) {
        logger.warn(
          'the service returned the same page again and again; it seems to ignore offset, paging stops',
          { offset: head.offset, repeats },
        );
        return;
      }
      previous = ends;
      const size = page.items.length;
      if (size === 0) {
        // The evidence: nothing at this offset, so nothing after it.
        abortAll();
        nextOffset = undefined;
      } else {
        const expected = head.offset + size;
        if (head.counted !== undefined && head.counted !== size) countsHold = false;
        if (size < page.limitUsed) speculate = false;
        else if (speculate) stride ??= size;
        if (window.length === 0 || window[0]?.offset !== expected) {
          // Nothing ahead yet, or pages asked for at offsets this answer proved wrong.
          abortAll();
          nextOffset = expected;
        }
        fill(true);
      }
      if (size > 0 && !repeated) {
        if (asked && options.turn) await options.turn();
        asked = false;
        yield page.items;
      }
      // The caller wants more (or had no page to see): a page past `speculateWithin` is asked for now.
      fill(false);
    }
  } finally {
    abortAll();
    all.abort();
    signal?.removeEventListener('abort', onAbort);
  }
}
