import type { INodeExecutionData, IRun, ITriggerFunctions } from 'n8n-workflow';

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

/**
 * The deduplication key of an attempt: n8n refuses a second execution under a key it has seen, so
 * a batch core hands over again (a failure retried, or left unfinished by a killed n8n) gets the
 * attempt in its key, and a batch caught up again after it finished (attempt 1) is refused.
 */
export function executionKey(scope: string, batchKey: string, attempt: number): string {
  return attempt === 1 ? `${scope}:${batchKey}` : `${scope}:${batchKey}:attempt${attempt}`;
}

/**
 * Emits one execution for `items` under `key` and settles once n8n has finished it (emit's done
 * promise): that is the acknowledgement core waits for before its position covers the events.
 * n8n resolves the done promise with no run when it refused the key (that execution exists,
 * finished or crashed): done. It rejects when it could not start the execution (its database
 * timed out), and with `rerunLost` an execution its queue-mode worker lost fails too, and with
 * `runAgain` any execution that ended in error (Run Failed Executions Again): core hands the batch
 * over again on its next attempt (see subscribeOptions), so the retries are core's.
 */
export function emitExecution(
  context: ITriggerFunctions,
  items: INodeExecutionData[],
  key: string,
  rerunLost: boolean,
  runAgain = false,
): Promise<void> {
  return new Promise<void>((acknowledge, fail) => {
    let settle!: Pick<DonePromise, 'resolve' | 'reject'>;
    const promise = new Promise<IRun | undefined>((resolve, reject) => {
      settle = { resolve, reject };
    });
    promise.then(
      (run) => {
        if (rerunLost && lostWithWorker(run))
          fail(new Error('n8n lost the execution with its queue-mode worker'));
        else if (runAgain && run?.status === 'error')
          // Core's report says "the workflow failed for event …: " before it: n8n's own reason.
          fail(new Error(run.data?.resultData?.error?.message ?? 'its execution ended in error'));
        else acknowledge();
      },
      (error: Error) => fail(new Error(`n8n could not start the execution: ${error.message}`)),
    );
    context.emit([items], undefined, { promise, ...settle } as DonePromise, key);
  });
}
