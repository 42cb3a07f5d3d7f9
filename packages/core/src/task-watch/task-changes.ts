import type { TaskSummary } from '../model/task.js';
import type { StoredTaskWatch } from '../ports.js';
import { diffTasks } from './diff-tasks.js';
import { readTaskWatch, storeTaskWatch } from './stored-state.js';
import type { TaskWatchEvent } from './types.js';

/** What one check of the tasks found, for a host that owns the schedule and the storage. */
export interface TaskChanges {
  /** Transitions, additions and removals since `stored`, by task id (none on a baseline). */
  events: TaskWatchEvent[];
  /** What to store for the next check (the same format `tasks.watch` keeps; no camera address). */
  state: StoredTaskWatch;
  /** Nothing usable was stored (a first check): `state` is the baseline, no change is reported. */
  baseline: boolean;
  /** Why a stored value could not be used (corrupt, of a newer version): for the host to warn of once. */
  problem?: string;
  /**
   * Why a stored value of another service was set aside: the user changed the settings, and the
   * check starts as a new one does. For the host to say once at info level, not as a warning.
   */
  note?: string;
}

/**
 * One check of a task watch whose host owns the schedule and the storage (n8n's polling
 * triggers): compares the tasks listed now with the state kept from the previous check (the
 * format `tasks.watch` stores) and returns the changes and the state to keep. Every task is
 * kept, so a host that filters what it reports can change its filter without inventing
 * additions. Without a usable state it only sets the baseline: nothing is reported twice or
 * invented.
 */
export function taskChanges(
  stored: unknown,
  listed: readonly TaskSummary[],
  at: Date,
  scope: string,
): TaskChanges {
  const reading = readTaskWatch(stored, scope, undefined);
  const known = reading.kind === 'restored' ? reading.known : new Map();
  const { events, next } = diffTasks(known, listed, at, reading.kind === 'restored' ? 'compare' : 'baseline');
  const changes: TaskChanges = {
    events,
    state: storeTaskWatch(next, scope, undefined, at),
    baseline: reading.kind !== 'restored',
  };
  if (reading.kind === 'unusable') changes.problem = reading.problem;
  if (reading.kind === 'foreign')
    changes.note = 'the stored task watch state belongs to another service (the settings changed)';
  return changes;
}

/** Each listed task's current status as an `initial` event (a watch's first report), by task id. */
export function currentTaskStatuses(listed: readonly TaskSummary[], at: Date): TaskWatchEvent[] {
  return diffTasks(new Map(), listed, at, 'baseline-initial').events;
}
