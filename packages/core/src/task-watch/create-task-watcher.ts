import { ObservationError } from '../errors/observation-error.js';
import type { TaskSummary } from '../model/task.js';
import type { Clock } from '../ports.js';
import type { TasksApi } from '../resources/tasks.js';
import { diffTasks, type KnownTask } from './diff-tasks.js';
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
  tasks: Pick<TasksApi, 'all'>;
  /** The wait between polls is the clock's cancellable sleep (no timer of the watcher's own). */
  clock: Clock;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * Polls `GET /tasks` (every page) every `intervalMs` and reports status transitions, added and
 * removed tasks to `handlers.onChange`. The first poll starts at once; the first successful poll
 * only sets the baseline (reported as `initial` events with `emitInitial`). A failed poll is
 * passed to `handlers.onError` and the watch goes on; nothing is ever thrown from a timer.
 * Throws a ValidationError at once for bad options.
 */
export function createTaskWatcher(
  client: TaskWatchSource,
  options: TaskWatchOptions | undefined,
  handlers: TaskWatchHandlers,
): TaskWatch {
  const { intervalMs, taskIds, emitInitial, signal } = resolveWatchOptions(options, handlers);
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

  async function listTasks(): Promise<TaskSummary[]> {
    const listed: TaskSummary[] = [];
    for await (const task of client.tasks.all(undefined, { signal: aborter.signal })) {
      if (taskIds === undefined || taskIds.has(task.id)) listed.push(task);
    }
    return listed;
  }

  async function pollOnce(): Promise<void> {
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
    const { events, next } = diffTasks(known, listed, at, mode);
    known = next;
    baselineSet = true;
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
