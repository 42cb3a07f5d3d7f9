/**
 * The event history: `historySize` seeded past events (record ids F…F+N−1, oldest first, F being
 * `firstId`, 1 by default) followed by every live event, with ids in the order events were
 * recorded (published). Inside, records are keyed from 1 whatever `firstId` is: content and times
 * come from the key, so `firstId` changes the ids a client sees and nothing else. A demo that
 * restarts the simulator under a host that kept its state gives each run ids above the last
 * run's, as a real service's record ids never repeat. Served in time
 * order: by timestamp, ties by record id, `desc` being exactly the reverse of `asc`; or, with
 * `ties` 'per-request', ties (rows of one second) in an order of each request's own, as a
 * database sorting on the one-second wire time alone gives them (see {@link EventLog.query}).
 *
 * A live event shows in history `lagMs` after it was pushed (a search index's refresh, a read
 * replica), plus a share of `lagSpreadMs` drawn per record (index shards refreshing apart): the
 * pump stamps push times, and only records pushed long enough ago are indexed.
 *
 * Live record ids grow in publication order; with `interleavedIds` up to that many ids between
 * two of them go to rows of other writers this service never lists (a database shared by other
 * workspaces' cameras), so the rows of one second do not have consecutive ids.
 *
 * Seeded events are never stored: their time and task come from arithmetic on (seed, position),
 * the rest is rebuilt on demand by the event factory. Live events store only their task id and
 * second (typed arrays, see {@link LiveRecords}), so a million emitted events cost a few
 * megabytes. Live events may be older than ones recorded before them (camera latency, late
 * publication) and may even fall inside the seeded span: a page is the merge of the two sorted
 * sequences, found by binary search, so paging without filters, or by task alone (each task has a
 * time order of its own), stays O(page) whatever the offset.
 */
import { hash2 } from '../random.js';
import type { SimulatedEvent, Task } from '../types.js';
import { isActiveStatus, type WorldState } from '../world/world-state.js';
import { buildEvent, type EventContext, eventKindIdFor } from './event-factory.js';
import { LiveRecords } from './live-records.js';
import { TieOrder } from './tie-order.js';
import type { TimeOrder } from './time-order.js';

export type HistoryOrder = 'asc' | 'desc';

/**
 * How rows of the same second are ordered: 'id' by record id (`desc` the exact reverse of `asc`),
 * 'per-request' in an order each request draws for itself (from the seed and a request counter).
 */
export type HistoryTies = 'id' | 'per-request';

export const HISTORY_TIES: readonly HistoryTies[] = ['id', 'per-request'];

export interface HistoryQuery {
  /** Inclusive bounds in epoch milliseconds. */
  startMs?: number;
  endMs?: number;
  taskId?: number;
  eventId?: number;
  eventName?: string;
  locationId?: number;
  cameraId?: number;
  ids?: number[];
  offset: number;
  limit: number;
  order: HistoryOrder;
}

export interface EventLogOptions {
  seed: number;
  world: WorldState;
  context: EventContext;
  historySize: number;
  /** Seeded events lie in [endMs - spanMs, endMs). */
  historyEndMs: number;
  historySpanMs: number;
  /** 'active': seeded events belong only to tasks active at start, like live ones; default 'all'. */
  historyTasks?: 'all' | 'active';
  /** Order of same-second rows; default 'id'. Changeable later through {@link EventLog.ties}. */
  ties?: HistoryTies;
  /** How long after its push a live event shows in history; default 0. See {@link EventLog.lagMs}. */
  lagMs?: number;
  /** Up to this much more lag, drawn per record; default 0. See {@link EventLog.lagSpreadMs}. */
  lagSpreadMs?: number;
  /** Up to this many record ids skipped before each live record, drawn per record; default 0. */
  interleavedIds?: number;
  /** Record id of the oldest seeded record; every later record counts up from it. Default 1. */
  firstId?: number;
}

const TASK_SALT = 0x7a5c;
const JITTER_SALT = 0x1177;
const TIE_SALT = 0x7135;
const DESC_SALT = 0x0de5;
const LAG_SALT = 0x1a65;
const GAP_SALT = 0x6a95;

/** Seeded positions in time order: every one (the position is the rank), or one task's. */
interface SeededOrder {
  readonly count: number;
  positionAt(rank: number): number;
}

function everySeeded(count: number): SeededOrder {
  return { count, positionAt: (rank) => rank };
}

/**
 * The part of history a time range selects, of every task or of one: ranks [aLo, aLo + nA) of
 * the seeded order `a`, ranks [bLo, bLo + nB) of the live order `b`.
 */
interface Span {
  a: SeededOrder;
  aLo: number;
  nA: number;
  b: TimeOrder;
  bLo: number;
  nB: number;
}

export class EventLog {
  readonly seededCount: number;
  /** Record id of key 1 (the oldest seeded record, or the first live one without seeded records). */
  readonly firstId: number;
  /** Added to a key to give its record id (the public methods take and give record ids). */
  readonly #offset: number;
  readonly #seed: number;
  readonly #world: WorldState;
  readonly #context: EventContext;
  readonly #startMs: number;
  readonly #spanMs: number;
  readonly #jitterMs: number;
  /** The tasks seeded events are spread over, uniformly. */
  readonly #seededTasks: readonly Task[];
  readonly #everySeeded: SeededOrder;
  /** Each task's seeded positions, made on the first page of that task's history. */
  readonly #seededOfTask = new Map<number, SeededOrder>();
  readonly #live = new LiveRecords();
  /** Live records whose content (kind, objects, plate, ...) is another record's: emitted twins. */
  readonly #contentOf = new Map<number, number>();
  /** Order of same-second rows in the answers from now on. */
  ties: HistoryTies;
  /**
   * A live record shows in history this long after it was pushed. Lowering it shows waiting
   * records sooner; raising it never hides a record already shown.
   */
  lagMs: number;
  /** Each live record shows up to this much later than `lagMs`, a share of it drawn per record. */
  lagSpreadMs: number;
  readonly #interleavedIds: number;
  #requests = 0;
  /**
   * The live record a walk over history last gave: the filter and the tie grouping then ask for
   * its task and second by id, and with `interleavedIds` each would search the positions again
   * (two binary searches per row, most of a 50,000-event storm's CPU).
   */
  #lastWalked = { id: 0, position: -1 };

  constructor(options: EventLogOptions) {
    this.#seed = options.seed;
    this.#world = options.world;
    this.#context = options.context;
    this.seededCount = options.historySize;
    this.firstId = options.firstId ?? 1;
    this.#offset = this.firstId - 1;
    this.#spanMs = options.historySpanMs;
    this.#startMs = options.historyEndMs - options.historySpanMs;
    // Jitter below one step keeps seeded times strictly increasing in milliseconds.
    this.#jitterMs = this.seededCount > 0 ? Math.floor(this.#spanMs / this.seededCount) : 0;
    const all = options.world.seededTasks;
    const active = all.filter((task) => isActiveStatus(task.status));
    // The live generator's fallback too: no active task means every task.
    this.#seededTasks = options.historyTasks === 'active' && active.length > 0 ? active : all;
    this.#everySeeded = everySeeded(this.seededCount);
    this.ties = options.ties ?? 'id';
    this.lagMs = options.lagMs ?? 0;
    this.lagSpreadMs = options.lagSpreadMs ?? 0;
    this.#interleavedIds = options.interleavedIds ?? 0;
  }

  /** Number of records (seeded + live). */
  get size(): number {
    return this.seededCount + this.#live.count;
  }

  /** The newest record id (firstId − 1 while there is no record). */
  get lastId(): number {
    return this.#newestKey() + this.#offset;
  }

  /** The newest key (0 when there is none). */
  #newestKey(): number {
    return this.#live.count > 0 ? this.#live.newestId : this.seededCount;
  }

  /** Whether a record has this id (whether history shows it yet or not). */
  has(id: number): boolean {
    return this.#positionOf(id - this.#offset) !== undefined;
  }

  /** Seeded record `id`'s position as a negative number minus one, a live one's position, or undefined. */
  #positionOf(id: number): number | undefined {
    if (!Number.isInteger(id) || id < 1) return undefined;
    if (id <= this.seededCount) return -id;
    // Ids that follow one another (no interleavedIds) need no search.
    const guess = id - this.seededCount - 1;
    if (guess < this.#live.count && this.#live.idAt(guess) === id) return guess;
    if (id === this.#lastWalked.id) return this.#lastWalked.position;
    const position = this.#live.positionOf(id);
    return position < 0 ? undefined : position;
  }

  get liveCount(): number {
    return this.#live.count;
  }

  /** The newest second of any live record (-Infinity before the first). */
  get newestLiveSecond(): number {
    return this.#live.newestSecond;
  }

  /**
   * Records a live event that occurred at `occurredMs`; returns its record id, second and content
   * id (what {@link buildEvent} draws its content from). Ids follow the order of recording,
   * whatever the time: a late event gets a larger id than newer ones. `contentOf`: the record
   * (id) whose content (kind, objects, plate, VLM answer, note) it repeats.
   * History shows it once {@link pushed} has stamped it (and `lagMs` has passed since).
   */
  append(
    taskId: number,
    occurredMs: number,
    contentOf?: number,
  ): { id: number; second: number; contentId: number } {
    const second = Math.floor(occurredMs / 1000);
    const position = this.#live.count;
    const skipped =
      this.#interleavedIds > 0 ? hash2(this.#seed ^ GAP_SALT, position) % (this.#interleavedIds + 1) : 0;
    const key = this.#newestKey() + 1 + skipped;
    this.#live.append(taskId, second, key);
    if (contentOf !== undefined) this.#contentOf.set(key, this.#contentIdOf(contentOf - this.#offset));
    return { id: key + this.#offset, second, contentId: this.#contentIdOf(key) };
  }

  /** Marks every live record appended since the last call as handed to the sockets at `ms`. */
  pushed(ms: number): void {
    this.#live.stampPushed(ms);
  }

  /** The task and second of record `id` (which must exist). */
  placeOf(id: number): { taskId: number; second: number } {
    const key = id - this.#offset;
    return { taskId: this.#taskIdOf(key), second: this.#secondOf(key) };
  }

  /** The full record with this id, or undefined when it does not exist (whether history shows it yet or not). */
  record(id: number): SimulatedEvent | undefined {
    return this.has(id) ? this.#build(id - this.#offset) : undefined;
  }

  /** The record with this key (which must exist), under its record id. */
  #build(key: number): SimulatedEvent | undefined {
    const task = this.#world.knownTask(this.#taskIdOf(key));
    if (!task) return undefined;
    return buildEvent(this.#context, key + this.#offset, task, this.#secondOf(key), this.#contentIdOf(key));
  }

  #contentIdOf(id: number): number {
    return this.#contentOf.get(id) ?? id;
  }

  /** Indexes the live records history shows now: those pushed at least `lagMs` ago. */
  #reveal(): void {
    const live = this.#live;
    const now = Date.now();
    // Records appended outside the pump (direct use of the log) count as pushed when first read.
    live.stampPushed(now);
    const { lagMs, lagSpreadMs } = this;
    if (lagMs === 0 && lagSpreadMs === 0) live.settle();
    else if (lagSpreadMs === 0) live.settle(now, () => lagMs, lagMs);
    else {
      const salt = this.#seed ^ LAG_SALT;
      live.settle(now, (position) => lagMs + (hash2(salt, position) % (lagSpreadMs + 1)), lagMs);
    }
  }

  /** Whether history shows record `id` (after #reveal()). */
  #shown(id: number): boolean {
    const position = this.#positionOf(id);
    return position !== undefined && (position < 0 || this.#live.isVisible(position));
  }

  /**
   * This request's order of same-second rows, or undefined for record-id order. Drawn from the
   * seed, a request counter and the direction: two requests (or the two directions) never share
   * an order, as a top-N sort over equal keys returns them in whatever order its heap leaves.
   */
  #tieOrder(order: HistoryOrder): TieOrder | undefined {
    if (this.ties !== 'per-request') return undefined;
    this.#requests++;
    return new TieOrder(hash2(this.#seed ^ TIE_SALT, this.#requests) ^ (order === 'desc' ? DESC_SALT : 0));
  }

  /** `ids` by second in `order`, ties in `ties`' order (by record id, reversed for desc, without). */
  #ordered(ids: number[], order: HistoryOrder, ties: TieOrder | undefined): number[] {
    const direction = order === 'asc' ? 1 : -1;
    const rows = ids.map((id) => ({ id, second: this.#secondOf(id) }));
    rows.sort(
      (a, b) => direction * (a.second - b.second) || (ties ? a.id - b.id : direction * (a.id - b.id)),
    );
    if (!ties) return rows.map((row) => row.id);
    const out: number[] = [];
    for (let start = 0; start < rows.length; ) {
      const second = (rows[start] as { second: number }).second;
      let end = start + 1;
      while (end < rows.length && (rows[end] as { second: number }).second === second) end++;
      const n = end - start;
      for (let rank = 0; rank < n; rank++)
        out.push((rows[start + ties.at(second, rank, n)] as { id: number }).id);
      start = end;
    }
    return out;
  }

  query(query: HistoryQuery): SimulatedEvent[] {
    const out: SimulatedEvent[] = [];
    if (query.limit <= 0) return out;
    const matches = this.#predicate(query);
    if (matches === 'none') return out;
    const startSecond = query.startMs === undefined ? undefined : Math.ceil(query.startMs / 1000);
    const endSecond = query.endMs === undefined ? undefined : Math.floor(query.endMs / 1000);
    // From here on records are handled by key (see the file comment); `take` gives their ids.
    const take = (key: number): void => {
      const event = this.#build(key);
      if (event) out.push(event);
    };
    const ties = this.#tieOrder(query.order);
    this.#reveal();

    if (query.ids) {
      const ids = [...new Set(query.ids)]
        .map((id) => id - this.#offset)
        .filter((id) => {
          if (!this.#shown(id)) return false;
          const second = this.#secondOf(id);
          if (startSecond !== undefined && second < startSecond) return false;
          if (endSecond !== undefined && second > endSecond) return false;
          return matches === 'all' || matches(id);
        });
      for (const id of this.#ordered(ids, query.order, ties).slice(
        query.offset,
        query.offset + query.limit,
      )) {
        take(id);
      }
      return out;
    }

    // A page of one task reads only that task's rows; with no other filter, by rank, as a page
    // without filters is: a catch-up pages one task at a time, deep into busy windows.
    const span = this.#span(startSecond, endSecond, query.taskId);
    const total = span.nA + span.nB;
    const onlyTask =
      query.taskId !== undefined &&
      query.eventId === undefined &&
      query.eventName === undefined &&
      query.locationId === undefined &&
      query.cameraId === undefined;
    if (onlyTask && !this.#world.knownTask(query.taskId as number)) return out;
    const filter = onlyTask ? 'all' : matches;
    if (filter === 'all') {
      // No filter but time: the page is a window of the merged sequence, found by binary search.
      const count = Math.min(query.limit, Math.max(0, total - query.offset));
      if (count === 0) return out;
      const first = query.order === 'asc' ? query.offset : total - query.offset - count;
      if (ties === undefined) {
        const ids = this.#window(span, first, count);
        if (query.order === 'desc') ids.reverse();
        for (const id of ids) take(id);
        return out;
      }
      // Ties in this request's order: the page is cut from the whole seconds at its two ends,
      // each second's rows taken rank by rank through the request's permutation (never sorted).
      const lo = this.#mergedFirstAtOrAfter(span, this.#mergedSecond(span, first));
      const hi = this.#mergedFirstAfter(span, this.#mergedSecond(span, first + count - 1));
      const seconds: { start: number; n: number; second: number }[] = [];
      for (let start = lo; start < hi; ) {
        const second = this.#mergedSecond(span, start);
        const end = this.#mergedFirstAfter(span, second);
        seconds.push({ start, n: end - start, second });
        start = end;
      }
      if (query.order === 'desc') seconds.reverse();
      let position = query.order === 'asc' ? lo : total - hi;
      for (const { start, n, second } of seconds) {
        const from = Math.max(0, query.offset - position);
        const to = Math.min(n, query.offset + count - position);
        for (let rank = from; rank < to; rank++) {
          take(this.#window(span, start + ties.at(second, rank, n), 1)[0] as number);
        }
        position += n;
      }
      return out;
    }

    let skipped = 0;
    const visit = (id: number): boolean => {
      if (skipped < query.offset) skipped++;
      else take(id);
      return out.length < query.limit;
    };
    if (ties === undefined) {
      const filtered = (id: number): boolean => !filter(id) || visit(id);
      if (query.order === 'asc') this.#walkForward(span, filtered);
      else this.#walkBackward(span, filtered);
      return out;
    }
    // Ties in this request's order: the matching rows of one second are gathered, then ordered.
    let group: number[] = [];
    let groupSecond = Number.NaN;
    const flush = (): boolean => {
      const rows = group;
      const n = rows.length;
      group = [];
      if (skipped + n <= query.offset) {
        skipped += n;
        return true;
      }
      // The walk gives a second's rows by record id, backwards for desc: the permutation's base is by id.
      if (query.order === 'desc') rows.reverse();
      // The ranks before the offset are skipped without drawing their place: a busy second of
      // thousands of rows, read 37 at a time, would draw every earlier rank again for each page.
      const from = Math.max(0, query.offset - skipped);
      skipped += from;
      for (let rank = from; rank < n; rank++) {
        if (!visit(rows[ties.at(groupSecond, rank, n)] as number)) return false;
      }
      return true;
    };
    const grouped = (id: number): boolean => {
      if (!filter(id)) return true;
      const second = this.#secondOf(id);
      if (second !== groupSecond) {
        if (!flush()) return false;
        groupSecond = second;
      }
      group.push(id);
      return true;
    };
    if (query.order === 'asc') this.#walkForward(span, grouped);
    else this.#walkBackward(span, grouped);
    if (out.length < query.limit) flush();
    return out;
  }

  /** The second of merged entry `index` of the span (which must exist). */
  #mergedSecond(span: Span, index: number): number {
    return this.#secondOf(this.#window(span, index, 1)[0] as number);
  }

  /** Index in the merged span of its first entry at or after `second`. */
  #mergedFirstAtOrAfter(span: Span, second: number): number {
    const a = clamp(this.#seededFirstAtOrAfter(span.a, second) - span.aLo, 0, span.nA);
    const b = clamp(span.b.firstAtOrAfter(second) - span.bLo, 0, span.nB);
    return a + b;
  }

  /** Index in the merged span of its first entry after `second`. */
  #mergedFirstAfter(span: Span, second: number): number {
    const a = clamp(this.#seededFirstAfter(span.a, second) - span.aLo, 0, span.nA);
    const b = clamp(span.b.firstAfter(second) - span.bLo, 0, span.nB);
    return a + b;
  }

  #taskIdOf(id: number): number {
    if (id <= this.seededCount) return this.#seededTaskId(id);
    return this.#live.taskAt(this.#positionOf(id) as number);
  }

  #seededTaskId(id: number): number {
    const tasks = this.#seededTasks;
    return (tasks[hash2(this.#seed ^ TASK_SALT, id) % tasks.length] as Task).id;
  }

  /** Task `taskId`'s seeded positions, in time order (the positions' order). */
  #seededOf(taskId: number): SeededOrder {
    let order = this.#seededOfTask.get(taskId);
    if (!order) {
      const positions: number[] = [];
      for (let position = 0; position < this.seededCount; position++) {
        if (this.#seededTaskId(position + 1) === taskId) positions.push(position);
      }
      const array = Int32Array.from(positions);
      order = { count: array.length, positionAt: (rank) => array[rank] as number };
      this.#seededOfTask.set(taskId, order);
    }
    return order;
  }

  #secondOf(id: number): number {
    if (id <= this.seededCount) return this.#seededSecond(id - 1);
    return this.#live.secondAt(this.#positionOf(id) as number);
  }

  #seededSecond(position: number): number {
    const base = this.#startMs + Math.floor((position * this.#spanMs) / this.seededCount);
    const jitter = this.#jitterMs > 1 ? hash2(this.#seed ^ JITTER_SALT, position) % this.#jitterMs : 0;
    return Math.floor((base + jitter) / 1000);
  }

  /** First rank of `order` whose second is >= `second`. */
  #seededFirstAtOrAfter(order: SeededOrder, second: number): number {
    let lo = 0;
    let hi = order.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#seededSecond(order.positionAt(mid)) < second) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First rank of `order` whose second is > `second`. */
  #seededFirstAfter(order: SeededOrder, second: number): number {
    let lo = 0;
    let hi = order.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#seededSecond(order.positionAt(mid)) <= second) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The seeded and live ranks inside [startSecond, endSecond], of one task or all (after #reveal()). */
  #span(startSecond: number | undefined, endSecond: number | undefined, taskId?: number): Span {
    const a = taskId === undefined ? this.#everySeeded : this.#seededOf(taskId);
    const b = taskId === undefined ? this.#live.inTimeOrder : this.#live.ofTask(taskId);
    const aLo = startSecond === undefined ? 0 : this.#seededFirstAtOrAfter(a, startSecond);
    const aHi = endSecond === undefined ? a.count : this.#seededFirstAfter(a, endSecond);
    const bLo = startSecond === undefined ? 0 : b.firstAtOrAfter(startSecond);
    const bHi = endSecond === undefined ? b.count : b.firstAfter(endSecond);
    return { a, aLo, nA: Math.max(0, aHi - aLo), b, bLo, nB: Math.max(0, bHi - bLo) };
  }

  // In the merged sequence a seeded record comes before a live one of the same second: its id is smaller.
  #secondA(span: Span, i: number): number {
    return this.#seededSecond(span.a.positionAt(span.aLo + i));
  }

  #idA(span: Span, i: number): number {
    return span.a.positionAt(span.aLo + i) + 1;
  }

  #secondB(span: Span, j: number): number {
    return span.b.secondAt(span.bLo + j);
  }

  #idB(span: Span, j: number): number {
    const position = span.b.positionAt(span.bLo + j);
    const id = this.#live.idAt(position);
    this.#lastWalked.id = id;
    this.#lastWalked.position = position;
    return id;
  }

  /** Ids of merged entries [first, first + count), ascending. */
  #window(span: Span, first: number, count: number): number[] {
    // How many seeded records are among the first `first` merged ones: the classic split search.
    let lo = Math.max(0, first - span.nB);
    let hi = Math.min(first, span.nA);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#secondA(span, mid) <= this.#secondB(span, first - mid - 1)) lo = mid + 1;
      else hi = mid;
    }
    let i = lo;
    let j = first - lo;
    const ids: number[] = [];
    while (ids.length < count) {
      if (j >= span.nB || (i < span.nA && this.#secondA(span, i) <= this.#secondB(span, j))) {
        ids.push(this.#idA(span, i));
        i++;
      } else {
        ids.push(this.#idB(span, j));
        j++;
      }
    }
    return ids;
  }

  /** Calls `visit` with each id of the span, oldest first, until it returns false. */
  #walkForward(span: Span, visit: (id: number) => boolean): void {
    let i = 0;
    let j = 0;
    while (i < span.nA || j < span.nB) {
      let id: number;
      if (j >= span.nB || (i < span.nA && this.#secondA(span, i) <= this.#secondB(span, j))) {
        id = this.#idA(span, i);
        i++;
      } else {
        id = this.#idB(span, j);
        j++;
      }
      if (!visit(id)) return;
    }
  }

  /** Calls `visit` with each id of the span, newest first, until it returns false. */
  #walkBackward(span: Span, visit: (id: number) => boolean): void {
    let i = span.nA;
    let j = span.nB;
    while (i > 0 || j > 0) {
      let id: number;
      if (j === 0 || (i > 0 && this.#secondA(span, i - 1) > this.#secondB(span, j - 1))) {
        i--;
        id = this.#idA(span, i);
      } else {
        j--;
        id = this.#idB(span, j);
      }
      if (!visit(id)) return;
    }
  }

  /** A cheap per-record filter (task and kind only, no event is built), 'all' or 'none'. */
  #predicate(query: HistoryQuery): ((id: number) => boolean) | 'all' | 'none' {
    let kinds: number[] | undefined;
    if (query.eventName !== undefined) {
      kinds = this.#world.eventTypes.filter((type) => type.name === query.eventName).map((type) => type.id);
      if (kinds.length === 0) return 'none';
    }
    if (query.eventId !== undefined) {
      kinds = (kinds ?? [query.eventId]).filter((id) => id === query.eventId);
      if (kinds.length === 0) return 'none';
    }
    const { taskId, locationId, cameraId } = query;
    if (kinds === undefined && taskId === undefined && locationId === undefined && cameraId === undefined) {
      return 'all';
    }
    const kindSet = kinds ? new Set(kinds) : undefined;
    return (recordId) => {
      const id = this.#taskIdOf(recordId);
      if (taskId !== undefined && id !== taskId) return false;
      const task = this.#world.knownTask(id);
      if (!task) return false;
      if (locationId !== undefined && task.location_id !== locationId) return false;
      if (cameraId !== undefined && task.camera_id !== cameraId) return false;
      return (
        kindSet === undefined || kindSet.has(eventKindIdFor(this.#seed, this.#contentIdOf(recordId), task))
      );
    };
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
