import { timestampMs } from '../normalize/read-timestamp.js';
import type { Logger } from '../ports.js';

/** A new walk of the same query narrowed to one second: its pages, in the service's order. */
export type ReadSecond = (secondMs: number) => AsyncIterable<unknown[]>;

/**
 * One answer of the same query narrowed to one second and to these record ids (its first page
 * only: the count decides whether anything is still missing), or undefined where the query cannot
 * ask by id (the basic form, or ids of the caller's own).
 */
export type ReadIds = ((secondMs: number, ids: readonly number[]) => Promise<unknown[]>) | undefined;

/**
 * Most record ids in one request by id: about 3 KB of query string (7-digit ids, each comma
 * encoded), well below the 8 KB request line common servers and proxies accept.
 */
const maxIdsPerRequest = 300;

/**
 * An answer by id is planned to hold at most this share of the longest page seen (its expected
 * rows and two standard deviations more), so that it is rarely cut; a longer one may have been.
 */
const idAnswerShare = 0.75;

/** Times one group of ids is asked again because its answer was long enough to have been cut. */
const maxGroupRepeats = 8;

/**
 * Walks of one second in a row that find no row it did not know, before giving up: each walk of a
 * second larger than a page finds about two thirds of the rows it misses when ties come in a new
 * order every request, so twelve find the last of them with room to spare. Counted from the last
 * walk that found one, not from the first walk: history shows a row a moment after it was pushed
 * (deployment notes), so a busy second read right after it may still be growing, and every walk
 * then lists rows no walk before it could. Twelve walks in all ended such a read while the second
 * grew, leaving rows behind that no later read came back for.
 */
const maxWalksWithoutNewRows = 12;
/** Walks of one second in all: a second that never stops changing is not walked forever. */
const maxSecondWalks = 100;

/**
 * Makes an offset walk of history whole, whatever order the service gives rows of the same second.
 *
 * The wire time has one-second resolution, so a busy second is a run of ties, and a service that
 * sorts on the time alone may list them in an order of each request's own (a database's top-N sort
 * with OFFSET does). A page boundary that cuts such a run then repeats some of its rows on the next
 * page and skips as many others. Every other row is safe: a run of ties takes the same positions in
 * every request, so a boundary between two seconds cuts nothing.
 *
 * So only a second that a page boundary cuts (the last row of one page and the first of the next
 * share it) can need more, and only when it repeated a row: a run takes the same positions in every
 * request, so a walk that read each of them once without a repeat read that many distinct rows,
 * all of them. A run that repeated one is read again on its own, walk after walk, until the rows
 * known for it are as many as a walk counts (the offset of the empty page that ends it). That count
 * is the proof: the service holds that many rows for the second, and that many distinct ones are
 * known. Rows found that way come after the page that ended the run. Memory: the keys of one run.
 *
 * Rows published while the walk goes on only add rows (a shift repeats rows, never skips one).
 * A service whose history is not in time order at all cannot be made whole this way: that is
 * reported once, and the walk goes on as the service gives it.
 */
export async function* wholePages(
  pages: AsyncIterable<unknown[]>,
  read: { second: ReadSecond; ids: ReadIds },
  logger: Pick<Logger, 'warn'>,
): AsyncGenerator<unknown[], void, undefined> {
  let run: Run | undefined;
  const order = new OrderCheck(logger);
  const seconds = new SecondReader();
  for await (const page of pages) {
    order.newPage();
    // The page as it came, until a row is left out: then a copy of what is kept (a repeat is rare;
    // a page that repeats nothing is passed on as it is, without a row-by-row copy).
    let out: unknown[] | undefined;
    const ended: Run[] = [];
    // The run the last page ended in, while this page goes on inside it: only such a run can
    // repeat a row, and its keys (made now, from the rows kept meanwhile) catch the repeats.
    let open = run;
    // The run that began in this page and goes on: its second, first row and rows so far. Its
    // Run (its rows, for the keys) is made only if the page ends inside it, once per page.
    let second = 0;
    let start = -1;
    let count = 0;
    // A row without a time lies inside that run: its rows are then not simply the page's tail.
    let gaps = false;
    for (let index = 0; index < page.length; index++) {
      const raw = page[index];
      const rowSecond = seconds.of(raw);
      if (rowSecond === undefined) {
        if (count > 0) gaps = true;
        out?.push(raw);
        continue;
      }
      order.see(rowSecond);
      if (open !== undefined) {
        if (open.second === rowSecond) {
          open.positions++;
          open.pageRows = Math.max(open.pageRows, page.length);
          const keys = keysOf(open);
          const key = rowKey(raw);
          if (keys.has(key)) {
            open.repeated = true;
            out ??= page.slice(0, index);
            continue;
          }
          keys.add(key);
          out?.push(raw);
          continue;
        }
        if (open.repeated) ended.push(open);
        open = undefined;
      } else if (count > 0 && second === rowSecond) {
        count++;
        out?.push(raw);
        continue;
      }
      second = rowSecond;
      start = index;
      count = 1;
      gaps = false;
      out?.push(raw);
    }
    if (open !== undefined) run = open;
    else if (count > 0) {
      const tail = page.slice(start);
      run = {
        second,
        rows: gaps ? tail.filter((raw) => secondOf(raw) !== undefined) : tail,
        keys: undefined,
        repeated: false,
        positions: count,
        pageRows: page.length,
      };
    }
    const kept = out ?? page;
    if (kept.length > 0) yield kept;
    for (const done of ended) yield* completeSecond(done, read, logger);
  }
  if (run?.repeated) yield* completeSecond(run, read, logger);
}

interface Run {
  second: number;
  /** Its rows, until its keys are needed (a page opened inside it); then undefined. */
  rows: unknown[] | undefined;
  /** The keys of its rows, made once a page boundary cut it. */
  keys: Set<string | number> | undefined;
  /** A page began inside this second's run and repeated one of its rows. */
  repeated: boolean;
  /** Rows of this second the walk read, repeats included: how many the service holds for it. */
  positions: number;
  /** The longest page the run was read in: about how many rows one answer holds. */
  pageRows: number;
  /** Record ids already asked for by id, from `askedFrom` to `askedTo` (none while undefined). */
  askedFrom?: number;
  askedTo?: number;
}

/** The run's keys, made from its kept rows the first time they are needed. */
function keysOf(run: Run): Set<string | number> {
  if (run.keys === undefined) {
    run.keys = new Set();
    for (const raw of run.rows ?? []) run.keys.add(rowKey(raw));
    run.rows = undefined;
  }
  return run.keys;
}

/**
 * The second each row is stamped with. The rows of a busy second carry the same text, so a row
 * stamped as the one before is not parsed again.
 */
class SecondReader {
  private text: unknown;
  private second: number | undefined;

  of(raw: unknown): number | undefined {
    if (raw === null || typeof raw !== 'object') return undefined;
    const value = (raw as { timestamp?: unknown }).timestamp;
    if (typeof value !== 'string' || value !== this.text) {
      this.text = value;
      this.second = secondOf(raw);
    }
    return this.second;
  }
}

/** The rows of `page` the run did not know yet, now known. */
function newRows(run: Run, page: unknown[]): unknown[] {
  const keys = keysOf(run);
  return page.filter((raw) => {
    const key = rowKey(raw);
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  });
}

async function* completeSecond(
  run: Run,
  read: { second: ReadSecond; ids: ReadIds },
  logger: Pick<Logger, 'warn'>,
): AsyncGenerator<unknown[], void, undefined> {
  if (yield* askByIds(run, read.ids)) return;
  let walks = 0;
  for (let stale = 0; stale < maxWalksWithoutNewRows && walks < maxSecondWalks; walks++) {
    let counted = 0;
    const known = keysOf(run).size;
    for await (const page of read.second(run.second)) {
      counted += page.length;
      const found = newRows(run, page);
      if (found.length > 0) yield found;
    }
    if (keysOf(run).size >= counted) return;
    stale = keysOf(run).size > known ? 0 : stale + 1;
    // Rows published meanwhile may have changed the count: this walk's is the one to reach.
    run.positions = counted;
    if (yield* askByIds(run, read.ids)) return;
  }
  logger.warn(
    'history of one second could not be read whole: its rows come in a new order on every request',
    {
      second: new Date(run.second).toISOString(),
      found: keysOf(run).size,
      listed: run.positions,
      walks,
    },
  );
}

/**
 * A cheaper way to the missing rows where rows carry record ids: the rows of one second were
 * stored at about the same time, so those not found yet are likely among the ids between the
 * smallest and the largest found (and a little beyond either). Other writers (other tasks, other
 * cameras, other workspaces) take ids between them, so these ids are asked for in groups sized by
 * how many of them are expected to be missing rows, so that an answer is rarely cut (fits in three
 * quarters of a page); one longer than that may have been cut and is asked again without the
 * rows it brought.
 *
 * Worth it only while an answer is expected to bring more missing rows than a page of a walk
 * does (a walk finds about two thirds of them): where other writers' ids are so many that a
 * group of the most ids a request can carry holds fewer, the walks go on alone. Ids once asked
 * are not asked again; later rounds ask only what the range grew by. Nothing is assumed: true
 * only when as many distinct rows are known as the walk counted for the second; otherwise the
 * walks of `completeSecond` follow. Memory: one group of ids at a time.
 */
async function* askByIds(run: Run, readIds: ReadIds): AsyncGenerator<unknown[], boolean, undefined> {
  const keys = keysOf(run);
  if (keys.size >= run.positions) return true;
  if (!readIds) return false;
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const key of keys) {
    if (typeof key !== 'number') return false;
    if (key < low) low = key;
    if (key > high) high = key;
  }
  if (low > high) return false;
  const missing = run.positions - keys.size;
  // A row missing just outside what was found lies about as far out as the found ones lie apart.
  const spacing = (high - low + 1) / keys.size;
  const margin = Math.ceil(Math.min(missing, 4) * spacing);
  const from = Math.max(1, low - margin);
  const to = high + margin;
  const asked = { from: run.askedFrom ?? to + 1, to: run.askedTo ?? to };
  let knownAsked = 0;
  for (const key of keys) if ((key as number) >= asked.from && (key as number) <= asked.to) knownAsked++;
  const askedInRange = Math.max(0, Math.min(to, asked.to) - Math.max(from, asked.from) + 1);
  const candidates = to - from + 1 - keys.size - (askedInRange - knownAsked);
  if (candidates <= 0) return false;
  const bound = Math.max(1, run.pageRows * idAnswerShare);
  const density = Math.min(1, missing / candidates);
  // The rows a group brings are binomial: the mean whose two standard deviations more reach the
  // bound (the whole bound where every id asked is a missing row, a third of it where few are).
  const spread = Math.sqrt(1 - density);
  const mean = Math.max(1, (Math.sqrt(spread * spread + bound) - spread) ** 2);
  const size = Math.max(1, Math.min(maxIdsPerRequest, Math.floor(mean / density)));
  // Rows a page of a walk is expected to find (about two thirds of the missing, over a walk).
  const walkRate = (0.63 * missing * run.pageRows) / run.positions;
  if (size * density < walkRate) return false;
  for (const group of idGroups(from, to, asked, keys, size)) {
    let ids = group;
    for (let repeat = 0; ids.length > 0 && repeat <= maxGroupRepeats; repeat++) {
      const answer = await readIds(run.second, ids);
      const found = newRows(run, answer);
      if (found.length > 0) yield found;
      if (answer.length <= bound || found.length === 0) break;
      ids = ids.filter((id) => !keys.has(id));
    }
    if (keys.size >= run.positions) return true;
  }
  run.askedFrom = Math.min(from, asked.from);
  run.askedTo = Math.max(to, run.askedTo ?? to);
  return keys.size >= run.positions;
}

/** The ids from `from` to `to` that are neither known nor asked already, `size` at a time. */
function* idGroups(
  from: number,
  to: number,
  asked: { from: number; to: number },
  keys: Set<string | number>,
  size: number,
): Generator<number[], void, undefined> {
  let ids: number[] = [];
  for (let id = from; id <= to; id++) {
    if (id >= asked.from && id <= asked.to) {
      id = asked.to;
      continue;
    }
    if (keys.has(id)) continue;
    ids.push(id);
    if (ids.length === size) {
      yield ids;
      ids = [];
    }
  }
  if (ids.length > 0) yield ids;
}

/** The second a row is stamped with, or undefined when its time cannot be read. */
function secondOf(raw: unknown): number | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const ms = timestampMs((raw as { timestamp?: unknown }).timestamp);
  return ms === undefined ? undefined : Math.floor(ms / 1000) * 1000;
}

/**
 * A row's identity within one walk of one service: its record id, or else the row as sent (the
 * same row comes back the same from the same endpoint; two older-form rows identical in every
 * field are one).
 */
function rowKey(raw: unknown): string | number {
  const id = (raw as { id?: unknown }).id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  return JSON.stringify(raw);
}

/**
 * Notices a history that is in no time order (seconds both rise and fall within one answer),
 * once. Only within a page: across pages, rows published meanwhile shift what comes next.
 */
class OrderCheck {
  private last: number | undefined;
  private rose = false;
  private fell = false;
  private reported = false;

  constructor(private readonly logger: Pick<Logger, 'warn'>) {}

  newPage(): void {
    this.last = undefined;
  }

  see(second: number): void {
    if (this.last !== undefined && second !== this.last) {
      if (second > this.last) this.rose = true;
      else this.fell = true;
      if (this.rose && this.fell && !this.reported) {
        this.reported = true;
        this.logger.warn(
          'history is not listed in time order: a page boundary may skip rows this client cannot find again',
          {},
        );
      }
    }
    this.last = second;
  }
}
