import type { INodeExecutionData, IRun, ITriggerFunctions } from 'n8n-workflow';

/** How often one batch is started again after its worker was lost (a worker that keeps dying is not helped by more). */
export const maxReruns = 3;

/** emit()'s done promise (n8n-workflow does not export its type). */
type DonePromise = NonNullable<Parameters<ITriggerFunctions['emit']>[2]>;

/**
 * n8n 2.41 in queue mode does not retry a job whose worker died (Bull's maxStalledCount is fixed
 * at 0): it fails the execution with this message and empties its data, so the event is gone
 * from n8n's records. The main process still reports it to the trigger through emit's done
 * promise, as an error run with this message and no node data.
 */
const workerLostMessage = 'This execution failed to be processed too many times';

export function lostWithWorker(run: IRun | undefined): boolean {
  const message = run?.data?.resultData?.error?.message;
  return (
    run?.status === 'error' &&
    typeof message === 'string' &&
    message.startsWith(workerLostMessage) &&
    Object.keys(run.data.resultData.runData ?? {}).length === 0
  );
}

/** How emitExecution treats what n8n reports back. */
export interface EmitPolicy {
  /** Start again, under a new key, an execution n8n failed because its queue-mode worker died. */
  rerunLost: boolean;
  /** Called with each key just before it is emitted (n8n saves static data at the emit). */
  starting?: (key: string) => void;
  /**
   * n8n refused `key` (an execution with it exists already): the key to start the events again
   * under, or undefined when that execution is known to have finished (nothing more to do).
   */
  againKey?: (key: string) => string | undefined;
  /**
   * Set once n8n deactivated the trigger: nothing more is emitted, and the events stay
   * unacknowledged (outside the saved position) for the next activation.
   */
  signal?: AbortSignal;
}

/**
 * Emits one execution for `items` under the deduplication key `key` and resolves once n8n has
 * finished it (emit's done promise): that is the acknowledgement core waits for before its
 * position covers the events. n8n's main saves static data when the trigger emits, before it
 * writes the execution, so a position saved at emit would outrun executions a killed main never
 * wrote; acknowledged at the end, a restart catches up some events again instead, and the key
 * (the workflow, the node and the events' identity) makes n8n refuse those repeats. n8n 2.41
 * resolves the done promise with no run when it refused a key: `againKey` then says whether the
 * events start again under a new key (see unfinished-executions.ts).
 *
 * With `rerunLost`, an execution n8n failed because its worker was lost is emitted again (key
 * `…:rerun<n>`, so n8n accepts it), up to `maxReruns` times: the events get a successful
 * execution, at the cost of running again the nodes the lost worker may already have run. An
 * execution n8n could not start at all is started again under the same key, up to `maxReruns`
 * times, then reported (an error log naming the events) and acknowledged: nothing is passed over
 * in silence, and the stream is not held forever.
 */
export function emitExecution(
  context: ITriggerFunctions,
  items: INodeExecutionData[],
  key: string,
  policy: EmitPolicy,
): Promise<void> {
  const { rerunLost, starting, againKey, signal } = policy;
  return new Promise<void>((acknowledge) => {
    const start = (attempt: number, attemptKey: string) => {
      // Deactivated meanwhile: the promise never settles, so core never counts these events done.
      if (signal?.aborted) return;
      let settle!: Pick<DonePromise, 'resolve' | 'reject'>;
      const promise = new Promise<IRun | undefined>((resolve, reject) => {
        settle = { resolve, reject };
      });
      promise.then(
        (run) => {
          if (run === undefined) {
            // Refused as a duplicate: started again when its execution may not have finished.
            const again = againKey?.(attemptKey);
            if (again !== undefined) {
              context.logger.warn(
                `Observation Trigger: ${items.length} event(s) were in an execution n8n did not finish before it stopped; starting them again`,
              );
              start(attempt, again);
              return;
            }
          } else if (rerunLost && attempt < maxReruns && lostWithWorker(run)) {
            context.logger.warn(
              `Observation Trigger: an execution of ${items.length} event(s) was lost with its n8n worker; starting it again (${attempt + 1} of ${maxReruns})`,
            );
            start(attempt + 1, `${key}:rerun${attempt + 1}`);
            return;
          }
          acknowledge();
        },
        (error: Error) => {
          // n8n could not start the execution (its database timed out, it is shutting down): no
          // node ran, so it is started again, under the same key (if n8n did record it, it refuses
          // the repeat).
          if (attempt < maxReruns) {
            context.logger.warn(
              `Observation Trigger: n8n could not start an execution of ${items.length} event(s): ${error.message}; trying again (${attempt + 1} of ${maxReruns})`,
            );
            start(attempt + 1, attemptKey);
            return;
          }
          context.logger.error(
            `Observation Trigger: n8n could not start an execution of ${items.length} event(s) after ${maxReruns + 1} tries (${error.message}); event ids: ${items.map((item) => item.json.id ?? item.json.imageUrl).join(', ')}`,
          );
          acknowledge();
        },
      );
      starting?.(attemptKey);
      context.emit([items], undefined, { promise, ...settle } as DonePromise, attemptKey);
    };
    start(0, key);
  });
}
