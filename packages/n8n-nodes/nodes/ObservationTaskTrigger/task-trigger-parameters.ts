import {
  type TaskStatus,
  type TaskWatchEvent,
  type TaskWatchEventType,
  ValidationError,
} from '@observation-service/core/portable';
import type { IDataObject, INodeProperties, IPollFunctions, ITriggerFunctions } from 'n8n-workflow';
import { readTaskSelection } from '../../shared/task-selection';
import { toJson } from '../../shared/to-json';

/** The watch's bounds in seconds (core checks the same range in milliseconds). */
export const minPollSeconds = 1;
export const maxPollSeconds = 86_400;

type Category = TaskStatus['category'];
const categories: readonly Category[] = ['operating', 'non-operating', 'unknown'];
const changeTypes: readonly TaskWatchEventType[] = ['changed', 'added', 'removed'];

/** Trigger On and the filters, the same in both versions (saved workflows depend on the names). */
export const taskChangeProperties: INodeProperties[] = [
  {
    displayName: 'Trigger On',
    name: 'changes',
    type: 'multiOptions',
    default: ['changed'],
    required: true,
    options: [
      {
        name: 'Status Changed',
        value: 'changed',
        description: "A task's status differs from the last check",
      },
      { name: 'Task Added', value: 'added', description: 'A task appeared in the list' },
      { name: 'Task Removed', value: 'removed', description: 'A task disappeared from the list' },
    ],
  },
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    options: [
      {
        displayName: 'New Status Category',
        name: 'newCategories',
        type: 'multiOptions',
        default: [],
        options: [
          { name: 'Operating', value: 'operating' },
          { name: 'Non-Operating', value: 'non-operating' },
          { name: 'Unknown', value: 'unknown', description: 'A status the service does not document' },
        ],
        description:
          'Only changes and additions whose new status is in one of these categories (e.g. Non-Operating and Unknown for outages). Removals always pass.',
      },
    ],
  },
];

/** What both versions of the trigger report: which tasks, which changes. */
export interface TaskChangeSettings {
  /** undefined = every task, including tasks added later. */
  taskIds: number[] | undefined;
  changes: ReadonlySet<TaskWatchEventType>;
  /** Empty = any category. Applies to the new status (changed, added); removals always pass. */
  newCategories: ReadonlySet<Category>;
}

/** Version 1 checks on its own interval. */
export interface TaskTriggerSettings extends TaskChangeSettings {
  intervalMs: number;
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

/** Reads the task selection, Trigger On and the filters; ids are checked by core (same messages as Node-RED). */
export function readTaskChangeSettings(context: ITriggerFunctions | IPollFunctions): TaskChangeSettings {
  const selection = readTaskSelection(context);
  const taskIds = selection === 'all' ? undefined : selection;
  const changes = readList(context.getNodeParameter('changes', ['changed']), 'Trigger On', changeTypes);
  if (changes.size === 0) {
    throw new ValidationError('Trigger On', '[]', `at least one of ${changeTypes.join(', ')}`);
  }
  const filters = context.getNodeParameter('filters', {}) as IDataObject;
  return {
    taskIds,
    changes,
    newCategories: readList(filters.newCategories, 'New Status Category', categories),
  };
}

/** Reads version 1's parameters: the poll interval, then what to report. */
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
  return { intervalMs: Math.round(seconds * 1000), ...readTaskChangeSettings(context) };
}

/** Whether the user asked for this event (an `initial` report always passes: it is the manual test). */
export function wanted(settings: TaskChangeSettings, event: TaskWatchEvent): boolean {
  if (settings.taskIds !== undefined && !settings.taskIds.includes(event.taskId)) return false;
  if (event.type === 'initial') return true;
  if (!settings.changes.has(event.type)) return false;
  if (event.current === undefined || settings.newCategories.size === 0) return true;
  return settings.newCategories.has(event.current.category);
}

/**
 * One flat item per watch event for n8n's table view: the new status as `status`, `category`,
 * `state`; the old one as `previousStatus`, `previousCategory`, `previousState` (empty when
 * there is none); the listed task under `task`, in the shape the action node shows (core's
 * `taskOutput`, as the watch event carries it).
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
