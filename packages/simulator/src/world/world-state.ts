/**
 * The mutable world behind the REST endpoints: current tasks (statuses change, tasks come and
 * go through `control`), and an archive of every task ever known so that past events of a
 * removed task can still be rebuilt for history and media.
 */
import { hash2, Rng } from '../random.js';
import type {
  EventType,
  Location,
  Organization,
  SchedulerKind,
  Task,
  TaskEvent,
  TaskListItem,
} from '../types.js';
import { EVENT_KINDS } from './catalog.js';
import { buildTask, type SeededWorld, seedWorld } from './seed-world.js';

/** What `control.addTask()` accepts: any task field; `events` may be event type ids; extra fields are kept. */
export type TaskInput = Partial<Omit<Task, 'events' | 'scheduler'>> & {
  events?: Array<number | TaskEvent>;
  scheduler?: SchedulerKind | Task['scheduler'];
  [extra: string]: unknown;
};

const SCHEDULER_KINDS = new Set(['24/7', 'daily', 'weekly']);

export class WorldState {
  readonly organizations: readonly Organization[];
  readonly locations: readonly Location[];
  readonly eventTypes: readonly EventType[];
  /** Tasks of the seed, in id order: seeded history events are spread over these. */
  readonly seededTasks: readonly Task[];
  readonly #seed: number;
  #tasks = new Map<number, Task>();
  readonly #archive = new Map<number, Task>();
  #nextTaskId = 1;
  #zoneIds = { next: 9500 };

  constructor(seed: number) {
    this.#seed = seed;
    const seeded: SeededWorld = seedWorld(seed);
    this.organizations = seeded.organizations;
    this.locations = seeded.locations;
    this.eventTypes = seeded.eventTypes;
    this.seededTasks = seeded.tasks.map((task) => structuredClone(task));
    this.reset();
  }

  /** Back to the seeded tasks and statuses (added tasks stay in the archive for history). */
  reset(): void {
    this.#tasks = new Map(this.seededTasks.map((task) => [task.id, structuredClone(task)]));
    for (const task of this.#tasks.values()) this.#archive.set(task.id, task);
    this.#nextTaskId = Math.max(this.#nextTaskId, ...this.#tasks.keys()) + 1;
  }

  tasks(): Task[] {
    return [...this.#tasks.values()].sort((a, b) => a.id - b.id);
  }

  task(id: number): Task | undefined {
    return this.#tasks.get(id);
  }

  /** A current or removed task: events refer to tasks that may no longer exist. */
  knownTask(id: number): Task | undefined {
    return this.#tasks.get(id) ?? this.#archive.get(id);
  }

  location(id: number): Location | undefined {
    return this.locations.find((location) => location.id === id);
  }

  eventType(id: number): EventType | undefined {
    return this.eventTypes.find((type) => type.id === id);
  }

  setTaskStatus(id: number, status: string): void {
    const task = this.#tasks.get(id);
    if (!task) throw new RangeError(`setTaskStatus: no task with id ${id} (known: ${this.#idList()})`);
    if (typeof status !== 'string' || status === '') {
      throw new TypeError(`setTaskStatus: status must be a non-empty string, got ${JSON.stringify(status)}`);
    }
    task.status = status;
  }

  addTask(input: TaskInput = {}): Task {
    const id = input.id ?? this.#nextTaskId;
    if (!Number.isInteger(id) || id < 1)
      throw new RangeError(`addTask: id must be a positive integer, got ${id}`);
    if (this.#archive.has(id)) throw new RangeError(`addTask: task id ${id} is already in use`);
    const locationId = input.location_id ?? this.locations[0]?.id ?? 11;
    const location = this.location(locationId);
    if (!location) {
      throw new RangeError(
        `addTask: location_id ${locationId} is unknown (known: ${this.locations.map((l) => l.id).join(', ')})`,
      );
    }
    const eventInputs = input.events ?? [EVENT_KINDS[0]?.id ?? 2001];
    if (eventInputs.length === 0) throw new RangeError('addTask: events must name at least one event type');
    const kindIds = eventInputs.map((item) => (typeof item === 'number' ? item : item.id));
    for (const kindId of kindIds) {
      if (!this.eventType(kindId)) {
        throw new RangeError(
          `addTask: event type ${kindId} is unknown (known: ${this.eventTypes.map((t) => t.id).join(', ')})`,
        );
      }
    }
    const schedulerKind =
      typeof input.scheduler === 'string' ? input.scheduler : (input.scheduler?.type ?? '24/7');
    if (!SCHEDULER_KINDS.has(schedulerKind)) {
      throw new RangeError(
        `addTask: scheduler must be one of 24/7, daily, weekly, got ${String(schedulerKind)}`,
      );
    }
    const rng = new Rng(hash2(this.#seed, 0xadd00000 + id));
    const base = buildTask(rng, this.#zoneIds, {
      id,
      name: input.name ?? `Added task ${id}`,
      status: input.status ?? 'operating, normal',
      schedulerKind,
      kindIds,
      location,
      cameraId: input.camera_id ?? 900 + id,
    });
    const { events, scheduler, ...rest } = input;
    const task: Task = { ...base, ...rest, id };
    if (events)
      task.events = events.map((item, n) =>
        typeof item === 'number' ? (base.events[n] as TaskEvent) : item,
      );
    if (scheduler && typeof scheduler === 'object') task.scheduler = scheduler;
    this.#tasks.set(id, task);
    this.#archive.set(id, task);
    this.#nextTaskId = Math.max(this.#nextTaskId, id + 1);
    return structuredClone(task);
  }

  removeTask(id: number): void {
    if (!this.#tasks.delete(id))
      throw new RangeError(`removeTask: no task with id ${id} (known: ${this.#idList()})`);
  }

  #idList(): string {
    return [...this.#tasks.keys()].join(', ');
  }
}

/** Operating tasks (and video-file tasks) produce live events; the others are quiet. */
export function isActiveStatus(status: string): boolean {
  return status.startsWith('operating') || status === 'video';
}

/** The list form: scheduler as its kind, events as ids, no thresholds or filters; extra fields kept. */
export function toListItem(task: Task): TaskListItem {
  const { id, name, status, scheduler, events, location_id, camera_id, camera_rtsp } = task;
  const { confidence_threshold: _c, object_size_filter: _o, ...extras } = task;
  return {
    ...extras,
    id,
    name,
    status,
    scheduler: scheduler.type,
    events: events.map((event) => event.id),
    location_id,
    camera_id,
    camera_rtsp,
  };
}
