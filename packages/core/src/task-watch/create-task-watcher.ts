import { asError } from '../errors/as-error.js';
import { ObservationError } from '../errors/observation-error.js';
import type { TaskSummary } from '../model/task.js';
import type { Clock, Logger } from '../ports.js';
import { diffTasks, type KnownTask } from './diff-tasks.js';
import { readTaskWatch, storeTaskWatch, taskWatchScope } from './stored-state.js';
import type {
  TaskWatch,
  TaskWatchHandlers,
  TaskWatchOptions,
  TaskWatchState,
  TaskWatchStats,
} from './types.js';
import { resolveWatchOptions } from './watch-options.js';

/** What the watcher needs of a client: listing every task, and the clock that spaces the polls. */
export interface TaskWatchSource {
  /** Every task, page by page: a client's `tasks` (stated here, so task-watch/ needs nothing of resources/). */
  tasks: { all(filters: undefined, options: { signal: AbortSignal }): AsyncIterable<TaskSummary> };
  /** The wait between polls is the clock's cancellable sleep (no timer of the watcher's own). */
  clock: Clock;
  /**
   * Names the service the tasks come from (e.g. its API URL and service id; only a hash of it is
   * stored): a state stored for another service is not used. Default: `''`.
   */
  origin?: string;
  /** Where a state of another service being set aside is said (at info level: the settings changed). */
  logger?: Pick<Logger, 'info'>;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Polls `GET /tasks` (every page) every `intervalMs` and reports status transitions, added and
 * removed tasks to `handlers.onChange`. The first poll starts at once; the first successful poll
 * only sets the baseline (reported as `initial` events with `emitInitial`), unless `options.store`
 * holds the statuses of an earlier run: then it reports what changed since. A failed poll is
 * passed to `handlers.onError` and the watch goes on; nothing is ever thrown from a timer.
 * Throws a ValidationError at once for bad options.
 */
export function createTaskWatcher(
  client: TaskWatchSource,
  options: TaskWatchOptions | undefined,
  handlers: TaskWatchHandlers,
): TaskWatch {
  const { intervalMs, taskIds, emitInitial, signal, store } = resolveWatchOptions(options, handlers);
  const scope = taskWatchScope(client.origin ?? '');
  const stats: TaskWatchStats = {
    polls: 0,
    failures: 0,
    consecutiveFailures: 0,
    changed: 0,
    added: 0,
    removed: 0,
    tasks: 0,
  };
  let state: TaskWatchState = 'starting';
  let known = new Map<number, KnownTask>();
  let baselineSet = false;
  /**
   * Until the first poll after a restored state: which tasks the stored state covers (a task it
   * does not is no `added`); with `emitInitial`, unchanged tasks are then `initial`.
   */
  let restoredWatched: ((taskId: number) => boolean) | undefined;
  /** Selection and tasks as last stored (JSON), so that an unchanged state is not written again. */
  let lastStored: string | undefined;
  let saveFailed = false;
  /** Cancels the sleep until the next poll (a poll on demand or close() ends it early). */
  let timer: AbortController | undefined;
  let inFlight: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const aborter = new AbortController();

  const report = (error: unknown): void => {
    try {
      handlers.onError?.(asError(error));
    } catch {
      // An error handler that throws has nowhere left to report to; the watch must go on.
    }
  };

  /** Reads the stored state once; never rejects (a state that cannot be used is reported). */
  async function restore(): Promise<void> {
    if (!store) return;
    let value: unknown;
    try {
      value = await store.load();
    } catch (error) {
      report(
        new ObservationError(
          'TASK_WATCH_STATE_RESET',
          `Reading the stored task watch state failed, starting from a fresh baseline: ${describe(error)}`,
          { cause: error },
        ),
      );
      return;
    }
    if (aborter.signal.aborted) return;
    const reading = readTaskWatch(value, scope, taskIds);
    if (reading.kind === 'unusable') {
      report(
        new ObservationError(
          'TASK_WATCH_STATE_RESET',
          `Task watch state not used: ${reading.problem}. Starting from a fresh baseline`,
        ),
      );
    } else if (reading.kind === 'foreign') {
      // The server was changed: its statuses are not this service's, and comparing with them
      // would report made-up changes. A new watch sets its baseline; so does this one. Info, as a
      // subscription says a position of another service: the user changed the settings.
      client.logger?.info(
        'the stored task watch state belongs to another service (the settings changed): starting from a fresh baseline, as a new watch does',
        {},
      );
    } else if (reading.kind === 'restored') {
      known = reading.known;
      baselineSet = true;
      restoredWatched = reading.watched;
    }
  }

  /** Hands the state to the store when it changed; a refusal is reported once and retried at the next poll. */
  function save(at: Date): void {
    if (!store) return;
    const state = storeTaskWatch(known, scope, taskIds, at);
    const stored = JSON.stringify([state.selection, state.tasks]);
    if (stored === lastStored) return;
    lastStored = stored;
    const failed = (error: unknown) => {
      lastStored = undefined;
      if (saveFailed) return;
      saveFailed = true;
      report(
        new ObservationError(
          'TASK_WATCH_STATE_SAVE_FAILED',
          `Saving the task watch state failed; the watch goes on, but after a restart it may report changes again or miss those made while stopped: ${describe(error)}`,
          { cause: error },
        ),
      );
    };
    try {
      const result = store.save(state);
      if (result && typeof (result as Promise<void>).then === 'function')
        (result as Promise<void>).catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  async function listTasks(): Promise<TaskSummary[]> {
    const listed: TaskSummary[] = [];
    for await (const task of client.tasks.all(undefined, { signal: aborter.signal })) {
      if (taskIds === undefined || taskIds.has(task.id)) listed.push(task);
    }
    return listed;
  }

  async function pollOnce(): Promise<void> {
    await restored;
    if (aborter.signal.aborted) return;
    let listed: TaskSummary[];
    try {
      listed = await listTasks();
    } catch (error) {
      if (aborter.signal.aborted) return; // closed meanwhile: not a failure
      stats.polls++;
      stats.failures++;
      stats.consecutiveFailures++;
      stats.lastPollAt = new Date();
      stats.lastError = asError(error).message;
      state = 'failing';
      report(error);
      // A closed client will never answer again.
      if (ObservationError.isInstance(error) && error.code === 'CLIENT_CLOSED') void close();
      return;
    }
    if (aborter.signal.aborted) return;
    const at = new Date();
    const mode = baselineSet ? 'compare' : emitInitial ? 'baseline-initial' : 'baseline';
    const diff = diffTasks(known, listed, at, mode);
    const { next } = diff;
    let { events } = diff;
    if (restoredWatched) {
      const watched = restoredWatched;
      events = events.filter((event) => event.type !== 'added' || watched(event.taskId));
      if (emitInitial) {
        // Every task once at start: how it changed while the watch was stopped, or else as it is.
        const reported = new Set(events.map((event) => event.taskId));
        const initial = diffTasks(new Map(), listed, at, 'baseline-initial').events;
        events.push(...initial.filter((event) => !reported.has(event.taskId)));
        events.sort((a, b) => a.taskId - b.taskId);
      }
    }
    known = next;
    baselineSet = true;
    restoredWatched = undefined;
    stats.polls++;
    stats.consecutiveFailures = 0;
    stats.lastPollAt = at;
    stats.lastSuccessAt = at;
    stats.tasks = next.size;
    state = 'running';
    for (const event of events) {
      if (aborter.signal.aborted) return;
      if (event.type !== 'initial') stats[event.type]++;
      try {
        await handlers.onChange(event);
      } catch (error) {
        report(error);
      }
    }
    // Only once the events were handled: a crash before this reports them again, never loses them.
    save(at);
  }

  function schedule(): void {
    if (aborter.signal.aborted) return;
    const wait = new AbortController();
    timer = wait;
    client.clock.sleep(intervalMs, wait.signal).then(
      () => {
        if (timer !== wait) return;
        timer = undefined;
        void poll();
      },
      () => undefined, // cancelled by poll() or close()
    );
  }

  function poll(): Promise<void> {
    if (aborter.signal.aborted) return Promise.resolve();
    if (inFlight) return inFlight;
    timer?.abort();
    timer = undefined;
    inFlight = pollOnce()
      .catch(report) // pollOnce handles its own failures; this is a last guard for the timer
      .finally(() => {
        inFlight = undefined;
        schedule();
      });
    return inFlight;
  }

  function close(): Promise<void> {
    closing ??= (async () => {
      state = 'closed';
      aborter.abort();
      signal?.removeEventListener('abort', onAbort);
      timer?.abort();
      timer = undefined;
      await inFlight;
    })();
    return closing;
  }

  const onAbort = (): void => void close();
  const restored = restore();
  if (signal?.aborted) {
    void close();
  } else {
    signal?.addEventListener('abort', onAbort, { once: true });
    void poll();
  }

  return {
    close,
    poll,
    get state() {
      return state;
    },
    get stats() {
      return { ...stats };
    },
  };
}
