import type { TaskSummary } from '../model/task.js';
import { taskOutput } from '../output/task-output.js';
import { parseTaskStatus, type TaskStatus } from '../task-status.js';
import type { TaskWatchEvent } from './types.js';

/** What the watch remembers of a task between polls (the spec's shape: what the store keeps). */
export interface KnownTask {
  status: TaskStatus;
  task: TaskSummary;
}

function nameOf(task: TaskSummary): string {
  return typeof task.name === 'string' ? task.name : String(task.id);
}

/** Same category and state: a change of spacing or case only (`Operating,Normal`) is no transition. */
function sameStatus(a: TaskStatus, b: TaskStatus): boolean {
  return a.category === b.category && a.state === b.state;
}

/**
 * Compares the tasks listed now with those known from the previous poll. Returns the events
 * (sorted by task id) and the new memory. Tasks without a usable id are ignored.
 */
export function diffTasks(
  known: ReadonlyMap<number, KnownTask>,
  listed: readonly TaskSummary[],
  at: Date,
  mode: 'baseline' | 'baseline-initial' | 'compare',
): { events: TaskWatchEvent[]; next: Map<number, KnownTask> } {
  const next = new Map<number, KnownTask>();
  for (const task of listed) {
    if (task === null || typeof task !== 'object' || !Number.isSafeInteger(task.id) || task.id <= 0) continue;
    next.set(task.id, { task, status: parseTaskStatus(task.status) });
  }
  const events: TaskWatchEvent[] = [];
  // Events carry the task in the shape hosts show (`taskOutput`); the memory, and so what a
  // store keeps, stays in the spec's shape, so states stored by earlier versions still read.
  const base = (task: TaskSummary) => ({
    taskId: task.id,
    taskName: nameOf(task),
    at,
    task: taskOutput(task),
  });
  if (mode === 'baseline-initial') {
    for (const { task, status } of next.values()) {
      events.push({ ...base(task), type: 'initial', previous: undefined, current: status });
    }
  } else if (mode === 'compare') {
    for (const { task, status } of next.values()) {
      const before = known.get(task.id);
      if (before === undefined) {
        events.push({ ...base(task), type: 'added', previous: undefined, current: status });
      } else if (!sameStatus(before.status, status)) {
        events.push({ ...base(task), type: 'changed', previous: before.status, current: status });
      }
    }
    for (const [id, before] of known) {
      if (!next.has(id)) {
        events.push({ ...base(before.task), type: 'removed', previous: before.status, current: undefined });
      }
    }
  }
  events.sort((a, b) => a.taskId - b.taskId);
  return { events, next };
}
