import type { ClientCore } from '../context/client-core.js';
import { historyLimitMax } from '../context/form-state.js';
import { ValidationError } from '../errors/validation-error.js';
import { type CappedHistory, cappedHistory } from '../history/capped-history.js';
import { historyWindow } from '../history/history-concurrency.js';
import { autoFirstPageSize, fetchHistoryPage } from '../history/history-pages.js';
import { iteratePages } from '../history/page-iterator.js';
import { wholePages } from '../history/whole-pages.js';
import type { QueryValue } from '../http/request.js';
import type { ObservationEvent } from '../model/observation-event.js';
import { normalizeWithProblems } from '../normalize/normalize-event.js';
import { describeValue } from '../validation/describe-value.js';
import { toWireTime } from '../validation/iso-time.js';
import type { HistoryFilters } from './filter-types.js';
import { type ParsedHistoryFilters, parseHistoryFilters } from './parse-filters.js';

/** A history event that could not be normalized and was skipped. */
export interface HistoryProblem {
  problems: string[];
  raw: unknown;
}

export interface HistoryOptions {
  signal?: AbortSignal;
  /** Called for each event that was skipped because it could not be read (also logged as a warning). */
  onProblem?: (problem: HistoryProblem) => void;
  /**
   * historyAll / collectHistory: pages requested at once, 1–16. Default 1: the next page, at the
   * offset the last answer proved, is read while the current one is consumed, so a read costs its
   * pages plus one request (the empty page that ends it), whatever the page sizes. More reads ahead
   * at guessed offsets while pages come back full (faster across a slow link, at the cost of up to
   * that many requests past the end); pages are still yielded strictly in offset order.
   */
  concurrency?: number;
}

export interface CollectHistoryOptions extends HistoryOptions {
  /** Stop after this many events. */
  max: number;
}

export interface RawHistoryOptions {
  signal?: AbortSignal;
  /** Stop after this many events (pages are then no bigger than needed). Default: every event. */
  max?: number;
  /** Pages requested at once, 1–16, with the same default as HistoryOptions. */
  concurrency?: number;
}

/**
 * The problems of the row being normalized: one list, which normalization empties before each row
 * (it is synchronous), so a row without problems costs no result object and no list of its own.
 * What leaves this module (a log entry, `onProblem`) gets a copy.
 */
const rowProblems: string[] = [];

/** One history item as an event, or undefined (reported, logged) when it cannot be read. */
export function normalizeInto(
  raw: unknown,
  core: ClientCore,
  options: HistoryOptions | undefined,
): ObservationEvent | undefined {
  const event = normalizeWithProblems(raw, rowProblems);
  if (event) {
    if (rowProblems.length > 0)
      core.logger.debug('history event normalized with problems', { problems: rowProblems.slice() });
    return event;
  }
  const problems = rowProblems.slice();
  core.logger.warn('history event skipped: it could not be read', { problems });
  options?.onProblem?.({ problems, raw });
  return undefined;
}

/**
 * Raw history events of every page, in the service's order, up to an empty page; `concurrency`
 * pages at once (default 1: the next page only). `max` (when the caller stops after that many
 * events) keeps pages past it from being read ahead.
 */
export function historyRaw(
  core: ClientCore,
  filters: HistoryFilters | undefined,
  signal: AbortSignal | undefined,
  maxPageSize?: number,
  window: { concurrency?: number; itemsAhead?: number; max?: number } = {},
): AsyncGenerator<unknown[], void, undefined> {
  core.assertOpen();
  const parsed = parseHistoryFilters(filters, core.form.configured);
  const formMax = core.form.historyMax();
  let pageSize = parsed.limit ?? formMax ?? autoFirstPageSize;
  if (maxPageSize !== undefined) pageSize = Math.min(pageSize, maxPageSize);
  const size = pageSize;
  // The size of a full page is known up front when the form's maximum is, or when the page is
  // no bigger than the smaller maximum; otherwise (auto form) the first answer tells, and pages
  // are only read ahead after it, so the maximum is learned once.
  const known =
    formMax !== undefined ? Math.min(size, formMax) : size <= historyLimitMax.extended ? size : undefined;
  const clock = core.clock;
  const turn = clock.turn === undefined ? undefined : () => (clock.turn as () => Promise<void>).call(clock);
  const walk = (query: ParsedHistoryFilters, offset: number) =>
    iteratePages(
      (at, pageSignal, arrived) => fetchHistoryPage(core, query, at, size, pageSignal, arrived),
      offset,
      signal,
      core.logger,
      {
        concurrency: window.concurrency ?? 1,
        ...(window.itemsAhead === undefined ? {} : { itemsAhead: window.itemsAhead }),
        ...(known === undefined ? {} : { pageSize: known }),
        ...(window.max === undefined ? {} : { speculateWithin: window.max }),
        ...(turn === undefined ? {} : { turn }),
      },
    );
  // A second a page boundary cut is read again on its own: the same filters, that second only.
  const oneSecond = (secondMs: number, ids?: readonly number[]): ParsedHistoryFilters => {
    const second = toWireTime(new Date(secondMs));
    const query: Record<string, QueryValue> = { ...parsed.query, start_time: second, end_time: second };
    if (ids) query.ids = ids.join(',');
    return { ...parsed, query };
  };
  // Asking by id only where ids exist (the extended form) and the caller asked for none of its own.
  const byIds = core.form.configured !== 'basic' && parsed.query.ids === undefined;
  return wholePages(
    walk(parsed, parsed.offset ?? 0),
    {
      second: (secondMs) => walk(oneSecond(secondMs), 0),
      ids: byIds
        ? async (secondMs, ids) =>
            (await fetchHistoryPage(core, oneSecond(secondMs, ids), 0, size, signal)).items
        : undefined,
    },
    core.logger,
  );
}

/**
 * A row of a page from historyRaw, let go by the page as it is read. The page is the reader's own
 * (parsed for this read, never handed to anyone else), and a page of 10,000 rows holds tens of MB
 * of parsed objects: while the rows are normalized, every young-generation collection copied the
 * rows not yet read, and rows already read too. Let go, they are not copied: a basic read of
 * 100,000 events took about a quarter less CPU.
 */
function take(page: unknown[], index: number): unknown {
  const raw = page[index];
  page[index] = undefined;
  return raw;
}

export async function history(
  core: ClientCore,
  filters?: HistoryFilters,
  options?: HistoryOptions,
): Promise<ObservationEvent[]> {
  core.assertOpen();
  const parsed = parseHistoryFilters(filters, core.form.configured);
  // The spec's default page size is 100; clamping to the form's maximum happens in the fetch.
  const page = await fetchHistoryPage(core, parsed, parsed.offset ?? 0, parsed.limit ?? 100, options?.signal);
  const events: ObservationEvent[] = [];
  for (const raw of page.items) {
    const event = normalizeInto(raw, core, options);
    if (event) events.push(event);
  }
  return events;
}

export async function* historyAll(
  core: ClientCore,
  filters?: HistoryFilters,
  options?: HistoryOptions,
): AsyncGenerator<ObservationEvent, void, undefined> {
  const readAhead = historyWindow(options?.concurrency);
  for await (const page of historyRaw(core, filters, options?.signal, undefined, readAhead)) {
    for (let index = 0; index < page.length; index++) {
      const raw = take(page, index);
      const event = normalizeInto(raw, core, options);
      if (event) yield event;
    }
  }
}

export async function collectHistory(
  core: ClientCore,
  filters: HistoryFilters | undefined,
  options: CollectHistoryOptions,
): Promise<ObservationEvent[]> {
  return collect(core, filters, options, checkMax(options?.max));
}

/**
 * Up to `max` events like collectHistory, and whether the cap cut any off: one event more is
 * read (at most one request more) as the proof, never returned.
 */
export async function collectHistoryCapped(
  core: ClientCore,
  filters: HistoryFilters | undefined,
  options: CollectHistoryOptions,
): Promise<CappedHistory> {
  const max = checkMax(options?.max);
  return cappedHistory(await collect(core, filters, options, max + 1), max);
}

function checkMax(max: unknown): number {
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1) {
    throw new ValidationError('max', describeValue(max), 'a whole number of at least 1');
  }
  return max;
}

async function collect(
  core: ClientCore,
  filters: HistoryFilters | undefined,
  options: CollectHistoryOptions,
  max: number,
): Promise<ObservationEvent[]> {
  const readAhead = historyWindow(options.concurrency);
  const events: ObservationEvent[] = [];
  // Never ask for a page bigger than what is still wanted, nor read ahead past it.
  const pages = historyRaw(core, filters, options.signal, Math.max(1, Math.min(max, historyLimitMax.basic)), {
    ...readAhead,
    max,
  });
  outer: for await (const page of pages) {
    for (let index = 0; index < page.length; index++) {
      const event = normalizeInto(take(page, index), core, options);
      if (event) events.push(event);
      if (events.length >= max) break outer;
    }
  }
  return events;
}

/**
 * The service's history items exactly as it sent them (no normalization, nothing skipped), page
 * after page like historyAll; `max` stops early. For callers that must pass the payload on as is.
 */
export async function* historyRawItems(
  core: ClientCore,
  filters?: HistoryFilters,
  options?: RawHistoryOptions,
): AsyncGenerator<unknown, void, undefined> {
  const max = options?.max;
  if (max !== undefined && (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1)) {
    throw new ValidationError(
      'max',
      describeValue(max),
      'a whole number of at least 1, or nothing for every event',
    );
  }
  const readAhead = historyWindow(options?.concurrency);
  const pageCap = max === undefined ? undefined : Math.max(1, Math.min(max, historyLimitMax.basic));
  let count = 0;
  const window = max === undefined ? readAhead : { ...readAhead, max };
  for await (const page of historyRaw(core, filters, options?.signal, pageCap, window)) {
    for (const raw of page) {
      yield raw;
      count++;
      if (max !== undefined && count >= max) return;
    }
  }
}
