import {
  type TaskStatus,
  type TaskWatchEvent,
  type TaskWatchEventType,
  ValidationError,
} from '@observation-service/core/portable';
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import { readTaskSelection } from '../../shared/task-selection';
import { toJson } from '../../shared/to-json';

/** The watch's bounds in seconds (core checks the same range in milliseconds). */
export const minPollSeconds = 1;
export const maxPollSeconds = 86_400;

type Category = TaskStatus['category'];
const categories: readonly Category[] = ['operating', 'non-operating', 'unknown'];
const changeTypes: readonly TaskWatchEventType[] = ['changed', 'added', 'removed'];

export interface TaskTriggerSettings {
  intervalMs: number;
  /** undefined = every task, including tasks added later. */
  taskIds: number[] | undefined;
  changes: ReadonlySet<TaskWatchEventType>;
  /** Empty = any category. Applies to the new status (changed, added); removals always pass. */
  newCategories: ReadonlySet<Category>;
}

function readList<T extends string>(value: unknown, field: string, allowed: readonly T[]): Set<T> {
  const list = Array.isArray(value) ? value : [];
  for (const entry of list) {
    if (!allowed.includes(entry as T)) {
      throw new ValidationError(field, JSON.stringify(entry), `one of ${allowed.join(', ')}`);
    }
  }
  return new Set(list as T[]);
}

/** Reads the task trigger's parameters; ids are checked by core (same messages as Node-RED). */
export function readTaskTriggerSettings(context: ITriggerFunctions): TaskTriggerSettings {
  const seconds = context.getNodeParameter('pollIntervalSeconds', 60) as unknown;
  if (
    typeof seconds !== 'number' ||
    !Number.isFinite(seconds) ||
    seconds < minPollSeconds ||
    seconds > maxPollSeconds
  ) {
    throw new ValidationError(
      'Poll Interval (Seconds)',
      JSON.stringify(seconds),
      `a number of seconds from ${minPollSeconds} to ${maxPollSeconds}`,
    );
  }
  const selection = readTaskSelection(context);
  const taskIds = selection === 'all' ? undefined : selection;
  const changes = readList(context.getNodeParameter('changes', ['changed']), 'Trigger On', changeTypes);
  if (changes.size === 0) {
    throw new ValidationError('Trigger On', '[]', `at least one of ${changeTypes.join(', ')}`);
  }
  const filters = context.getNodeParameter('filters', {}) as IDataObject;
  return {
    intervalMs: Math.round(seconds * 1000),
    taskIds,
    changes,
    newCategories: readList(filters.newCategories, 'New Status Category', categories),
  };
}

/** Whether the user asked for this event (an `initial` report always passes: it is the manual test). */
export function wanted(settings: TaskTriggerSettings, event: TaskWatchEvent): boolean {
  if (event.type === 'initial') return true;
  if (!settings.changes.has(event.type)) return false;
  if (event.current === undefined || settings.newCategories.size === 0) return true;
  return settings.newCategories.has(event.current.category);
}

/**
 * One flat item per watch event for n8n's table view: the new status as `status`, `category`,
 * `state`; the old one as `previousStatus`, `previousCategory`, `previousState` (empty when
 * there is none); the listed task under `task`.
 */
export function taskEventToJson(event: TaskWatchEvent): IDataObject {
  return {
    type: event.type,
    taskId: event.taskId,
    taskName: event.taskName,
    status: event.current?.raw ?? null,
    category: event.current?.category ?? null,
    state: event.current?.state ?? null,
    previousStatus: event.previous?.raw ?? null,
    previousCategory: event.previous?.category ?? null,
    previousState: event.previous?.state ?? null,
    at: event.at.toISOString(),
    task: toJson(event.task),
  };
}
