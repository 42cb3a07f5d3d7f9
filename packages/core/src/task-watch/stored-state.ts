import type { TaskSummary } from '../model/task.js';
import type { StoredTask, StoredTaskWatch } from '../ports.js';
import { stableHash } from '../stable-hash.js';
import { parseTaskStatus } from '../task-status.js';
import type { KnownTask } from './diff-tasks.js';

export const taskWatchFormat: StoredTaskWatch['format'] = 'observation-task-watch';
export const taskWatchVersion: StoredTaskWatch['version'] = 1;

/** Tasks one stored state may hold: a stored value is never an unbounded allocation. */
const maxStoredTasks = 100_000;

export type TaskWatchReading =
  | { kind: 'none' }
  /**
   * `known`: the stored tasks the watch still watches. `watched(id)`: whether the stored state
   * covers a task, i.e. the watch watched it then too; a task it did not (the selection grew) is
   * new to the watch, not new to the service, so it is no `added`.
   */
  | { kind: 'restored'; known: Map<number, KnownTask>; watched: (taskId: number) => boolean }
  | { kind: 'unusable'; problem: string }
  /** Stored for another service: the settings changed, and the watch starts as a new one does. */
  | { kind: 'foreign' };

/**
 * A short, stable name for "this service": a state stored for another service would report
 * changes that are none. Not a secret and not an address.
 */
export function taskWatchScope(origin: string): string {
  return stableHash(`task-watch|${origin}`);
}

/** The stored form of what the watch knows now. */
export function storeTaskWatch(
  known: ReadonlyMap<number, KnownTask>,
  scope: string,
  taskIds: ReadonlySet<number> | undefined,
  at: Date,
): StoredTaskWatch {
  const tasks: StoredTask[] = [];
  for (const { task } of known.values()) {
    const stored: StoredTask = { id: task.id, name: String(task.name), status: String(task.status) };
    if (typeof task.scheduler === 'string') stored.scheduler = task.scheduler;
    if (Array.isArray(task.events)) stored.events = task.events.filter(Number.isSafeInteger);
    if (Number.isSafeInteger(task.location_id)) stored.location_id = task.location_id;
    if (Number.isSafeInteger(task.camera_id)) stored.camera_id = task.camera_id;
    tasks.push(stored);
  }
  tasks.sort((a, b) => a.id - b.id);
  const selection = taskIds === undefined ? 'all' : [...taskIds].sort((a, b) => a - b);
  return {
    format: taskWatchFormat,
    version: taskWatchVersion,
    scope,
    selection,
    savedAt: at.toISOString(),
    tasks,
  };
}

/**
 * Reads what a host stored, for a watch of `taskIds` (undefined: all). Never throws: nothing
 * stored is `none`; a corrupt value or an unknown version is `unusable` with the reason, for the
 * watch to report once and start from a fresh baseline; another service's is `foreign` (the user
 * changed the server: a fresh baseline too, with a warning, as a new watch starts). A changed selection is
 * no problem: the tasks watched then and now are compared, the others start from this run.
 */
export function readTaskWatch(
  value: unknown,
  scope: string,
  taskIds: ReadonlySet<number> | undefined,
): TaskWatchReading {
  if (value === undefined || value === null) return { kind: 'none' };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'unusable', problem: `the stored task watch state is not an object (${typeof value})` };
  }
  const record = value as Record<string, unknown>;
  if (record.format !== taskWatchFormat) {
    return { kind: 'unusable', problem: 'the stored value is not a task watch state' };
  }
  if (record.version !== taskWatchVersion) {
    return {
      kind: 'unusable',
      problem: `the stored task watch state has version ${JSON.stringify(record.version)}; this version reads ${taskWatchVersion}`,
    };
  }
  if (record.scope !== scope) return { kind: 'foreign' };
  const selection = record.selection;
  const watchedThen =
    selection === 'all'
      ? undefined
      : Array.isArray(selection) && selection.every((id) => Number.isSafeInteger(id))
        ? new Set(selection as number[])
        : null;
  if (watchedThen === null) {
    return { kind: 'unusable', problem: 'the stored task watch state has no selection' };
  }
  const tasks = record.tasks;
  if (!Array.isArray(tasks) || tasks.length > maxStoredTasks) {
    return { kind: 'unusable', problem: 'the stored task watch state has no list of tasks' };
  }
  const known = new Map<number, KnownTask>();
  for (const entry of tasks) {
    const task = restoreTask(entry);
    if (typeof task === 'string') {
      return { kind: 'unusable', problem: `the stored task watch state is corrupt: ${task}` };
    }
    if (taskIds === undefined || taskIds.has(task.id)) {
      known.set(task.id, { task, status: parseTaskStatus(task.status) });
    }
  }
  return {
    kind: 'restored',
    known,
    watched: (taskId) => watchedThen === undefined || watchedThen.has(taskId),
  };
}

/** A stored task as the watch remembers it, or what is wrong with it. */
function restoreTask(entry: unknown): TaskSummary | string {
  if (typeof entry !== 'object' || entry === null) return `a task is ${JSON.stringify(entry)}`;
  const { id, name, status, scheduler, events, location_id, camera_id } = entry as Record<string, unknown>;
  if (!Number.isSafeInteger(id) || (id as number) <= 0) return `a task has id ${JSON.stringify(id)}`;
  if (typeof name !== 'string' || typeof status !== 'string') {
    return `task ${id} has no name or status`;
  }
  const ids = Array.isArray(events)
    ? events.filter((event): event is number => Number.isSafeInteger(event))
    : [];
  return {
    id: id as number,
    name,
    status,
    scheduler: typeof scheduler === 'string' ? scheduler : '',
    events: ids,
    location_id: Number.isSafeInteger(location_id) ? (location_id as number) : 0,
    camera_id: Number.isSafeInteger(camera_id) ? (camera_id as number) : 0,
    // Never stored: it may carry the camera's credentials.
    camera_rtsp: '',
  };
}
