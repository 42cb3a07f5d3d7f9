import type { ClientCore } from '../context/client-core.js';
import { getJson } from '../http/request.js';
import type { TaskDetail, TaskSummary } from '../model/task.js';
import { currentTaskStatuses, type TaskChanges } from '../task-watch/task-changes.js';
import type { TaskWatch, TaskWatchEvent, TaskWatchHandlers, TaskWatchOptions } from '../task-watch/types.js';
import { parseId } from '../validation/parse-id.js';
import type { TaskFilters } from './filter-types.js';
import type { RequestOptions } from './locations.js';
import { parseTaskFilters } from './parse-filters.js';
import { expectRecord, readAll, readPage } from './read-list.js';

export interface TasksApi {
  /** One page of `GET /tasks` (list form: scheduler is a string, events are ids). */
  list(filters?: TaskFilters, options?: RequestOptions): Promise<TaskSummary[]>;
  /** `GET /tasks/:task_id` (detail form: scheduler object, task events with zones). */
  get(id: number | string, options?: RequestOptions): Promise<TaskDetail>;
  /** Every task, page by page (next page prefetched). */
  all(filters?: TaskFilters, options?: RequestOptions): AsyncIterable<TaskSummary>;
  /**
   * Polls the task list every `intervalMs` and reports status transitions (and tasks added or
   * removed) to `handlers.onChange`; closed with the client. See `createTaskWatcher`.
   */
  watch(options: TaskWatchOptions | undefined, handlers: TaskWatchHandlers): TaskWatch;
  /**
   * One check of the task list against `stored` (what the previous check returned as `state`, or
   * nothing): the changes since, and the state to keep. For hosts that schedule checks and keep
   * the state themselves (n8n's polling triggers); same changes and format as `watch`.
   */
  changes(stored: unknown, options?: RequestOptions): Promise<TaskChanges>;
  /** Every task's current status as an `initial` event, by task id. */
  statuses(options?: RequestOptions): Promise<TaskWatchEvent[]>;
}

/** The REST reads; `watch` and `changes` are added by the client, which knows the service's scope. */
export function createTasksApi(core: ClientCore): Omit<TasksApi, 'watch' | 'changes'> {
  return {
    list(filters, options) {
      const parsed = parseTaskFilters(filters);
      return readPage<TaskSummary>(
        core,
        '/tasks',
        parsed.query,
        parsed.offset,
        parsed.limit,
        options?.signal,
      );
    },
    async get(id, options) {
      const taskId = parseId(id, 'taskId');
      core.assertOpen();
      const body = await getJson(core.http, { path: `/tasks/${taskId}`, signal: options?.signal });
      return expectRecord<TaskDetail>(body, `GET /tasks/${taskId}`);
    },
    all(filters, options) {
      const parsed = parseTaskFilters(filters);
      return readAll<TaskSummary>(core, '/tasks', parsed.query, parsed.offset, parsed.limit, options?.signal);
    },
    async statuses(options) {
      return currentTaskStatuses(await listAll(core, options), new Date(core.clock.now()));
    },
  };
}

/** Every task of the service. */
export async function listAll(core: ClientCore, options?: RequestOptions): Promise<TaskSummary[]> {
  const listed: TaskSummary[] = [];
  for await (const task of readAll<TaskSummary>(core, '/tasks', {}, 0, undefined, options?.signal))
    listed.push(task);
  return listed;
}
