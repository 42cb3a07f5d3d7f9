import type { TaskSummary } from '../model/task.js';
import { parseTaskStatus } from '../task-status.js';
import { diffTasks, type KnownTask } from './diff-tasks.js';
import type { TaskWatchEvent } from './types.js';

/**
 * What a host that polls on its own schedule keeps between two polls (in storage that outlives
 * a restart): each task's name and raw status, by id. Plain JSON, and only what a diff needs;
 * the rest of a task (its camera address among it) is not stored.
 */
export type TaskStatusRecord = Record<string, { name: string; status: string }>;

function readRecord(kept: unknown): Map<number, KnownTask> | undefined {
  if (kept === null || typeof kept !== 'object' || Array.isArray(kept)) return undefined;
  const known = new Map<number, KnownTask>();
  for (const [key, entry] of Object.entries(kept)) {
    const id = Number(key);
    if (!Number.isSafeInteger(id) || id <= 0 || entry === null || typeof entry !== 'object') continue;
    const { name, status } = entry as { name?: unknown; status?: unknown };
    if (typeof status !== 'string') continue;
    const taskName = typeof name === 'string' ? name : String(id);
    // A removed task is reported with what was kept of it.
    const task = { id, name: taskName, status } as TaskSummary;
    known.set(id, { task, status: parseTaskStatus(status) });
  }
  return known;
}

function toRecord(known: ReadonlyMap<number, KnownTask>): TaskStatusRecord {
  const record: TaskStatusRecord = {};
  for (const [id, { task, status }] of known) {
    record[String(id)] = { name: typeof task.name === 'string' ? task.name : String(id), status: status.raw };
  }
  return record;
}

/**
 * One poll of a task watch whose host owns the schedule and the storage (n8n's polling
 * triggers): compares the tasks listed now with the record kept from the previous poll and
 * returns the transitions, additions and removals (sorted by task id, as `tasks.watch` reports
 * them) and the record to keep. Without a usable record (the first poll, or storage that was
 * cleared or is not a record) it only sets the baseline: `baseline` is true and there are no
 * events, so nothing is reported twice or invented.
 */
export function compareTaskStatuses(
  kept: unknown,
  listed: readonly TaskSummary[],
  at: Date,
): { events: TaskWatchEvent[]; record: TaskStatusRecord; baseline: boolean } {
  const known = readRecord(kept);
  const { events, next } = diffTasks(known ?? new Map(), listed, at, known ? 'compare' : 'baseline');
  return { events, record: toRecord(next), baseline: known === undefined };
}

/** Each listed task's current status as an `initial` event (a watch's first report), by task id. */
export function currentTaskStatuses(listed: readonly TaskSummary[], at: Date): TaskWatchEvent[] {
  return diffTasks(new Map(), listed, at, 'baseline-initial').events;
}
