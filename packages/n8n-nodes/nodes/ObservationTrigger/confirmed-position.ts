import type { PositionStore, StoredPosition } from '@observation-service/core/portable';
import type { IRun, ITriggerFunctions } from 'n8n-workflow';

/** emit()'s done promise (n8n-workflow does not export its type). */
type DonePromise = NonNullable<Parameters<ITriggerFunctions['emit']>[2]>;

/**
 * A position store that writes core's position into static data only once every execution
 * emitted before it has finished (n8n settles emit's done promise then, in regular and in queue
 * mode).
 *
 * Why: n8n's main process saves static data when the trigger emits, BEFORE the execution row is
 * written (trigger-execution-context.factory: `void saveStaticData(workflow)`, then runWorkflow);
 * in queue mode, under load, those saves overtake the execution inserts still queued behind them.
 * A main SIGKILLed then restarted from a position that already counts events it never turned into
 * executions: measured, 275 of 1,500 events lost at 200/s. Holding the position back until the
 * executions exist errs the other way (a restart catches up some events again) and the execution
 * key (execution-key.ts) makes n8n refuse those repeats, so each event is one execution.
 */
export class ConfirmedPositionStore implements PositionStore {
  /** Settles once every execution emitted so far has finished (or failed, or was refused). */
  private barrier: Promise<unknown> = Promise.resolve();

  constructor(private readonly inner: PositionStore) {}

  load(): unknown {
    return this.inner.load();
  }

  /** The done promise to pass to emit(); the next saved position waits for it. */
  emitted(): DonePromise {
    let settle!: Pick<DonePromise, 'resolve' | 'reject'>;
    const promise = new Promise<IRun>((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.barrier = Promise.allSettled([this.barrier, promise]);
    return { promise, ...settle };
  }

  save(position: StoredPosition): Promise<void> {
    // Saves stay in order: each barrier settles after the one before it.
    return this.barrier.then(() => this.inner.save(position));
  }
}
