import type { TaskOutput } from '../output/task-output.js';
import type { TaskWatchStore } from '../ports.js';
import type { TaskStatus } from '../task-status.js';
import type { IdListInput } from '../validation/parse-id-list.js';

/** What a task watch reports for one task. */
export type TaskWatchEventType = 'initial' | 'changed' | 'added' | 'removed';

interface TaskWatchEventBase {
  taskId: number;
  /** The task's current name (the last known one for `removed`). */
  taskName: string;
  /** When the poll that saw it completed. */
  at: Date;
  /**
   * The task as `GET /tasks` listed it, in the shape hosts show (`taskOutput`: camelCase,
   * `scheduler` an object, `eventTypeIds`, `statusParsed`). For `removed`: as last seen; for a
   * task removed while the watch was stopped, as stored: `cameraRtsp` is `''` and fields the
   * spec does not describe are missing.
   */
  task: TaskOutput;
}

/**
 * A status transition, or a task appearing or disappearing. Statuses are parsed with
 * `parseTaskStatus`: `{ raw: 'operating, disconnected', category: 'operating', state: 'disconnected' }`.
 */
export type TaskWatchEvent =
  | (TaskWatchEventBase & { type: 'initial'; previous: undefined; current: TaskStatus })
  | (TaskWatchEventBase & { type: 'added'; previous: undefined; current: TaskStatus })
  | (TaskWatchEventBase & { type: 'changed'; previous: TaskStatus; current: TaskStatus })
  | (TaskWatchEventBase & { type: 'removed'; previous: TaskStatus; current: undefined });

export interface TaskWatchOptions {
  /** Time between polls in ms, from the end of one poll to the start of the next. 1000 to 86,400,000; default 30,000. */
  intervalMs?: number;
  /** Watch only these tasks (ids, an array or `"1,2"`). Default: every task. */
  taskIds?: IdListInput;
  /**
   * Report every watched task once after the first successful poll: `initial`, or with a restored
   * state, how it changed (`changed`, `added`, `removed`) when it did. Default false.
   */
  emitInitial?: boolean;
  /** Aborting closes the watch. */
  signal?: AbortSignal;
  /**
   * Where the watch keeps the last known statuses between runs. With a store, the first poll
   * compares with what was stored, so a change made while the host was stopped is reported as
   * `changed` (or `added` / `removed`); without one, the first poll only sets the baseline. After
   * a change of `taskIds`, the tasks watched then and now are compared.
   */
  store?: TaskWatchStore;
}

export interface TaskWatchHandlers {
  /** Called once per event, in task id order per poll; an async handler is awaited before the next. */
  onChange(event: TaskWatchEvent): void | Promise<void>;
  /**
   * A failed poll (the watch goes on and tries again after `intervalMs`), a throwing `onChange`,
   * or a stored state that could not be read or used (`TASK_WATCH_STATE_RESET`: the watch starts
   * from a fresh baseline) or saved (`TASK_WATCH_STATE_SAVE_FAILED`, once).
   */
  onError?(error: Error): void;
}

/** `starting` until the first successful poll; `failing` while the last poll failed. */
export type TaskWatchState = 'starting' | 'running' | 'failing' | 'closed';

export interface TaskWatchStats {
  /** Polls finished, successful or not. */
  polls: number;
  failures: number;
  consecutiveFailures: number;
  /** Events delivered, by type. */
  changed: number;
  added: number;
  removed: number;
  /** Tasks watched after the last successful poll. */
  tasks: number;
  lastPollAt?: Date;
  lastSuccessAt?: Date;
  /** Message of the last poll failure. */
  lastError?: string;
}

/** A running task watch. */
export interface TaskWatch {
  /** Stops polling; an in-flight poll is aborted and no event is delivered afterwards. Idempotent. */
  close(): Promise<void>;
  /** Polls now (waiting for a poll already in flight instead of starting a second one); the next timed poll follows `intervalMs` later. */
  poll(): Promise<void>;
  readonly state: TaskWatchState;
  readonly stats: Readonly<TaskWatchStats>;
}
