import type { ClientCore } from '../context/client-core.js';
import { getJson } from '../http/request.js';
import type { TaskDetail, TaskSummary } from '../model/task.js';
import type { TaskWatch, TaskWatchHandlers, TaskWatchOptions } from '../task-watch/types.js';
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
}

/** The REST reads; `watch` is added by the client, which closes watches with itself. */
export function createTasksApi(core: ClientCore): Omit<TasksApi, 'watch'> {
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
  };
}
