import { AuthError } from '../errors/auth-error.js';
import { ObservationError } from '../errors/observation-error.js';
import { backoffDelay } from './backoff.js';
import type { RealtimeContext } from './context.js';
import type { ResolvedOptions } from './subscribe-options.js';

export interface TaskListUpdate {
  ids: number[];
  /** True for the very first listing (nothing before it could have been missed). */
  first: boolean;
  /**
   * When the previous successful listing started: a task missing from it but present now was
   * created after that, so its events can only be newer.
   */
  previousListingMs: number | undefined;
}

export interface TaskFollowerOptions {
  context: RealtimeContext;
  options: ResolvedOptions;
  signal: AbortSignal;
  onUpdate(update: TaskListUpdate): void;
  onError(error: Error): void;
  /** An auth refusal while listing: waiting will not fix it. */
  onFatal(error: AuthError): void;
}

/**
 * Basic form with `'all'`: there is no "all tasks" socket, so the task list is read now and then
 * (`taskRefreshMs`) and the subscription opens or closes one socket per task to match.
 * A failed listing is retried with backoff and keeps the current sockets.
 */
export async function followTasks(follower: TaskFollowerOptions): Promise<void> {
  const { context, options, signal } = follower;
  let previousListingMs: number | undefined;
  let failures = 0;
  while (!signal.aborted) {
    const startedMs = context.clock.now();
    let delay: number;
    try {
      const ids = await context.listTaskIds(signal);
      if (signal.aborted) return;
      follower.onUpdate({
        ids: [...new Set(ids)],
        first: previousListingMs === undefined,
        previousListingMs,
      });
      previousListingMs = startedMs;
      failures = 0;
      delay = options.taskRefreshMs;
    } catch (error) {
      if (signal.aborted) return;
      if (AuthError.isInstance(error)) {
        follower.onFatal(error);
        return;
      }
      failures++;
      follower.onError(
        new ObservationError(
          'TASK_LIST_FAILED',
          `Reading the task list for the realtime subscription failed (attempt ${failures}), retrying: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        ),
      );
      delay = Math.min(options.taskRefreshMs, Math.max(1, backoffDelay(failures, options.backoff)));
    }
    try {
      await context.clock.sleep(delay, signal);
    } catch {
      return;
    }
  }
}
