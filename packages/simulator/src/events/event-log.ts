/**
 * The event history: `historySize` seeded past events followed by every live event, one
 * time-ordered sequence where record id = position + 1.
 *
 * Seeded events are never stored: their time and task come from arithmetic on (seed, position),
 * the rest is rebuilt on demand by the event factory. Live events store only their task id and
 * second (typed arrays), so a million emitted events cost a few megabytes. Paging by time range
 * or without filters is index arithmetic plus a binary search: O(page), whatever the offset.
 */
import { hash2 } from '../random.js';
import type { SimulatedEvent, Task } from '../types.js';
import type { WorldState } from '../world/world-state.js';
import { buildEvent, type EventContext, eventKindIdFor } from './event-factory.js';

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
}

const TASK_SALT = 0x7a5c;
const JITTER_SALT = 0x1177;

export class EventLog {
  readonly seededCount: number;
  readonly #seed: number;
  readonly #world: WorldState;
  readonly #context: EventContext;
  readonly #startMs: number;
  readonly #spanMs: number;
  readonly #jitterMs: number;
  #liveTask = new Int32Array(1024);
  #liveTime = new Float64Array(1024);
  #liveCount = 0;
  #lastSecond: number;

  constructor(options: EventLogOptions) {
    this.#seed = options.seed;
    this.#world = options.world;
    this.#context = options.context;
    this.seededCount = options.historySize;
    this.#spanMs = options.historySpanMs;
    this.#startMs = options.historyEndMs - options.historySpanMs;
    // Jitter below one step keeps seeded times strictly increasing in milliseconds.
    this.#jitterMs = this.seededCount > 0 ? Math.floor(this.#spanMs / this.seededCount) : 0;
    this.#lastSecond =
      this.seededCount > 0
        ? this.#seededSecond(this.seededCount - 1)
        : Math.floor(options.historyEndMs / 1000) - 1;
  }

  /** Number of records (seeded + live); the newest record id equals it. */
  get size(): number {
    return this.seededCount + this.#liveCount;
  }

  get liveCount(): number {
    return this.#liveCount;
  }

  /** Records a live event; returns its record id and second. Seconds never go backwards. */
  append(taskId: number, nowMs: number): { id: number; second: number } {
    const second = Math.max(Math.floor(nowMs / 1000), this.#lastSecond);
    this.#lastSecond = second;
    if (this.#liveCount === this.#liveTask.length) {
      const task = new Int32Array(this.#liveTask.length * 2);
      task.set(this.#liveTask);
      this.#liveTask = task;
      const time = new Float64Array(this.#liveTime.length * 2);
      time.set(this.#liveTime);
      this.#liveTime = time;
    }
    this.#liveTask[this.#liveCount] = taskId;
    this.#liveTime[this.#liveCount] = second;
    this.#liveCount++;
    return { id: this.size, second };
  }

  secondAt(position: number): number {
    if (position < this.seededCount) return this.#seededSecond(position);
    return this.#liveTime[position - this.seededCount] as number;
  }

  taskIdAt(position: number): number {
    if (position < this.seededCount) {
      const tasks = this.#world.seededTasks;
      return (tasks[hash2(this.#seed ^ TASK_SALT, position + 1) % tasks.length] as Task).id;
    }
    return this.#liveTask[position - this.seededCount] as number;
  }

  /** The full record with this id, or undefined when it does not exist. */
  record(id: number): SimulatedEvent | undefined {
    if (!Number.isInteger(id) || id < 1 || id > this.size) return undefined;
    const position = id - 1;
    const task = this.#world.knownTask(this.taskIdAt(position));
    if (!task) return undefined;
    return buildEvent(this.#context, id, task, this.secondAt(position));
  }

  query(query: HistoryQuery): SimulatedEvent[] {
    const lo = query.startMs === undefined ? 0 : this.#firstAtOrAfter(Math.ceil(query.startMs / 1000));
    const hi = query.endMs === undefined ? this.size : this.#firstAfter(Math.floor(query.endMs / 1000));
    const out: SimulatedEvent[] = [];
    if (lo >= hi || query.limit <= 0) return out;
    const matches = this.#predicate(query);
    if (matches === 'none') return out;
    const take = (position: number): void => {
      const event = this.record(position + 1);
      if (event) out.push(event);
    };

    if (query.ids) {
      const positions = [...new Set(query.ids)]
        .map((id) => id - 1)
        .filter((p) => p >= lo && p < hi && (matches === 'all' || matches(p)))
        .sort((a, b) => (query.order === 'asc' ? a - b : b - a));
      for (const position of positions.slice(query.offset, query.offset + query.limit)) take(position);
      return out;
    }

    if (matches === 'all') {
      // No filter but time: the page is a slice of positions.
      const count = Math.min(query.limit, Math.max(0, hi - lo - query.offset));
      for (let n = 0; n < count; n++)
        take(query.order === 'asc' ? lo + query.offset + n : hi - 1 - query.offset - n);
      return out;
    }

    let skipped = 0;
    const step = query.order === 'asc' ? 1 : -1;
    for (
      let p = query.order === 'asc' ? lo : hi - 1;
      p >= lo && p < hi && out.length < query.limit;
      p += step
    ) {
      if (!matches(p)) continue;
      if (skipped < query.offset) skipped++;
      else take(p);
    }
    return out;
  }

  #seededSecond(position: number): number {
    const base = this.#startMs + Math.floor((position * this.#spanMs) / this.seededCount);
    const jitter = this.#jitterMs > 1 ? hash2(this.#seed ^ JITTER_SALT, position) % this.#jitterMs : 0;
    return Math.floor((base + jitter) / 1000);
  }

  #firstAtOrAfter(second: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.secondAt(mid) < second) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #firstAfter(second: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.secondAt(mid) <= second) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** A cheap per-position filter (task and kind only, no event is built), 'all' or 'none'. */
  #predicate(query: HistoryQuery): ((position: number) => boolean) | 'all' | 'none' {
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
    return (position) => {
      const id = this.taskIdAt(position);
      if (taskId !== undefined && id !== taskId) return false;
      const task = this.#world.knownTask(id);
      if (!task) return false;
      if (locationId !== undefined && task.location_id !== locationId) return false;
      if (cameraId !== undefined && task.camera_id !== cameraId) return false;
      return kindSet === undefined || kindSet.has(eventKindIdFor(this.#seed, position + 1, task));
    };
  }
}
