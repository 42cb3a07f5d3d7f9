import { asError } from '../errors/as-error.js';
import { ObservationError } from '../errors/observation-error.js';
import type { RealtimeContext } from './context.js';

/**
 * The extended form's one socket accepts any task id and carries nothing for one the service does
 * not have, so a mistyped id would look like a quiet task for ever. The task list is read once
 * when the socket for an explicit selection is set up, and ids it does not list are reported once
 * (`TASK_NOT_FOUND`); the stream runs for the others. A list that cannot be read proves nothing:
 * that is only logged.
 */
export async function reportUnknownTasks(
  context: RealtimeContext,
  taskIds: readonly number[],
  signal: AbortSignal,
  report: (error: Error) => void,
): Promise<void> {
  let listed: number[];
  try {
    listed = await context.listTaskIds(signal);
  } catch (error) {
    if (!signal.aborted)
      context.logger.debug('could not read the task list to check the selection', {
        error: asError(error).message,
      });
    return;
  }
  if (signal.aborted) return;
  const known = new Set(listed);
  const unknown = taskIds.filter((id) => !known.has(id));
  if (unknown.length === 0) return;
  const names = unknown.map((id) => `task ${id}`).join(', ');
  report(
    new ObservationError(
      'TASK_NOT_FOUND',
      `The service lists no ${names}: no event will come for ${unknown.length === 1 ? 'it' : 'them'}. Check the task IDs (the others are followed)`,
    ),
  );
}
