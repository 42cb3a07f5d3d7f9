/**
 * The event history: `historySize` seeded past events (record ids 1…N, oldest first) followed
 * by every live event, with ids in the order events were recorded (published). Served in time
 * order: by timestamp, ties by record id, `desc` being exactly the reverse of `asc`.
 *
 * Seeded events are never stored: their time and task come from arithmetic on (seed, position),
 * the rest is rebuilt on demand by the event factory. Live events store only their task id and
 * second (typed arrays, see {@link LiveRecords}), so a million emitted events cost a few
 * megabytes. Live events may be older than ones recorded before them (camera latency, late
 * publication) and may even fall inside the seeded span: a page is the merge of the two sorted
 * sequences, found by binary search, so paging without filters stays O(page) whatever the offset.
 */
import { hash2 } from '../random.js';
import type { SimulatedEvent, Task } from '../types.js';
import { isActiveStatus, type WorldState } from '../world/world-state.js';
import { buildEvent, type EventContext, eventKindIdFor } from './event-factory.js';
import { LiveRecords } from './live-records.js';

export type HistoryOrder = 'asc' | 'desc';

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
}

const TASK_SALT = 0x7a5c;
const JITTER_SALT = 0x1177;

/** The part of history a time range selects: seeded positions [aLo, aLo + nA), live ranks [bLo, bLo + nB). */
interface Span {
  aLo: number;
  nA: number;
  bLo: number;
  nB: number;
}

export class EventLog {
  readonly seededCount: number;
  readonly #seed: number;
  readonly #world: WorldState;
  readonly #context: EventContext;
  readonly #startMs: number;
  readonly #spanMs: number;
  readonly #jitterMs: number;
  /** The tasks seeded events are spread over, uniformly. */
  readonly #seededTasks: readonly Task[];
  readonly #live = new LiveRecords();

  constructor(options: EventLogOptions) {
    this.#seed = options.seed;
    this.#world = options.world;
    this.#context = options.context;
    this.seededCount = options.historySize;
    this.#spanMs = options.historySpanMs;
    this.#startMs = options.historyEndMs - options.historySpanMs;
    // Jitter below one step keeps seeded times strictly increasing in milliseconds.
    this.#jitterMs = this.seededCount > 0 ? Math.floor(this.#spanMs / this.seededCount) : 0;
    const all = options.world.seededTasks;
    const active = all.filter((task) => isActiveStatus(task.status));
    // The live generator's fallback too: no active task means every task.
    this.#seededTasks = options.historyTasks === 'active' && active.length > 0 ? active : all;
  }

  /** Number of records (seeded + live); the newest record id equals it. */
  get size(): number {
    return this.seededCount + this.#live.count;
  }

  get liveCount(): number {
    return this.#live.count;
  }

  /** The newest second of any live record (-Infinity before the first). */
  get newestLiveSecond(): number {
    return this.#live.newestSecond;
  }

  /**
   * Records a live event that occurred at `occurredMs`; returns its record id and second. Ids
   * follow the order of recording, whatever the time: a late event gets a larger id than newer ones.
   */
  append(taskId: number, occurredMs: number): { id: number; second: number } {
    const second = Math.floor(occurredMs / 1000);
    const position = this.#live.append(taskId, second);
    return { id: this.seededCount + position + 1, second };
  }

  /** The full record with this id, or undefined when it does not exist. */
  record(id: number): SimulatedEvent | undefined {
    if (!Number.isInteger(id) || id < 1 || id > this.size) return undefined;
    const task = this.#world.knownTask(this.#taskIdOf(id));
    if (!task) return undefined;
    return buildEvent(this.#context, id, task, this.#secondOf(id));
  }

  query(query: HistoryQuery): SimulatedEvent[] {
    const out: SimulatedEvent[] = [];
    if (query.limit <= 0) return out;
    const matches = this.#predicate(query);
    if (matches === 'none') return out;
    const startSecond = query.startMs === undefined ? undefined : Math.ceil(query.startMs / 1000);
    const endSecond = query.endMs === undefined ? undefined : Math.floor(query.endMs / 1000);
    const take = (id: number): void => {
      const event = this.record(id);
      if (event) out.push(event);
    };

    if (query.ids) {
      const ids = [...new Set(query.ids)].filter((id) => {
        if (!Number.isInteger(id) || id < 1 || id > this.size) return false;
        const second = this.#secondOf(id);
        if (startSecond !== undefined && second < startSecond) return false;
        if (endSecond !== undefined && second > endSecond) return false;
        return matches === 'all' || matches(id);
      });
      const direction = query.order === 'asc' ? 1 : -1;
      ids.sort((a, b) => direction * (this.#secondOf(a) - this.#secondOf(b) || a - b));
      for (const id of ids.slice(query.offset, query.offset + query.limit)) take(id);
      return out;
    }

    this.#live.settle();
    const span = this.#span(startSecond, endSecond);
    const total = span.nA + span.nB;
    if (matches === 'all') {
      // No filter but time: the page is a window of the merged sequence, found by binary search.
      const count = Math.min(query.limit, Math.max(0, total - query.offset));
      if (count === 0) return out;
      const first = query.order === 'asc' ? query.offset : total - query.offset - count;
      const ids = this.#window(span, first, count);
      if (query.order === 'desc') ids.reverse();
      for (const id of ids) take(id);
      return out;
    }

    let skipped = 0;
    const visit = (id: number): boolean => {
      if (!matches(id)) return true;
      if (skipped < query.offset) skipped++;
      else take(id);
      return out.length < query.limit;
    };
    if (query.order === 'asc') this.#walkForward(span, visit);
    else this.#walkBackward(span, visit);
    return out;
  }

  #taskIdOf(id: number): number {
    if (id <= this.seededCount) {
      const tasks = this.#seededTasks;
      return (tasks[hash2(this.#seed ^ TASK_SALT, id) % tasks.length] as Task).id;
    }
    return this.#live.taskAt(id - this.seededCount - 1);
  }

  #secondOf(id: number): number {
    if (id <= this.seededCount) return this.#seededSecond(id - 1);
    return this.#live.secondAt(id - this.seededCount - 1);
  }

  #seededSecond(position: number): number {
    const base = this.#startMs + Math.floor((position * this.#spanMs) / this.seededCount);
    const jitter = this.#jitterMs > 1 ? hash2(this.#seed ^ JITTER_SALT, position) % this.#jitterMs : 0;
    return Math.floor((base + jitter) / 1000);
  }

  #seededFirstAtOrAfter(second: number): number {
    let lo = 0;
    let hi = this.seededCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#seededSecond(mid) < second) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #seededFirstAfter(second: number): number {
    let lo = 0;
    let hi = this.seededCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#seededSecond(mid) <= second) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The seeded positions and live ranks inside [startSecond, endSecond] (after settle()). */
  #span(startSecond: number | undefined, endSecond: number | undefined): Span {
    const live = this.#live;
    const aLo = startSecond === undefined ? 0 : this.#seededFirstAtOrAfter(startSecond);
    const aHi = endSecond === undefined ? this.seededCount : this.#seededFirstAfter(endSecond);
    const bLo = startSecond === undefined ? 0 : live.firstRankAtOrAfter(startSecond);
    const bHi = endSecond === undefined ? live.count : live.firstRankAfter(endSecond);
    return { aLo, nA: Math.max(0, aHi - aLo), bLo, nB: Math.max(0, bHi - bLo) };
  }

  // In the merged sequence a seeded record comes before a live one of the same second: its id is smaller.
  #secondA(span: Span, i: number): number {
    return this.#seededSecond(span.aLo + i);
  }

  #secondB(span: Span, j: number): number {
    return this.#live.secondAtRank(span.bLo + j);
  }

  #idB(span: Span, j: number): number {
    return this.seededCount + this.#live.positionAtRank(span.bLo + j) + 1;
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
        ids.push(span.aLo + i + 1);
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
        id = span.aLo + i + 1;
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
        id = span.aLo + i + 1;
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
      return kindSet === undefined || kindSet.has(eventKindIdFor(this.#seed, recordId, task));
    };
  }
}
