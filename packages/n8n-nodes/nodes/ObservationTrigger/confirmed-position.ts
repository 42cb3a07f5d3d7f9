import type { PositionStore, StoredPosition } from '@observation-service/core/portable';
import type { IRun, ITriggerFunctions } from 'n8n-workflow';

/** Executions in flight before the trigger waits (a few times what a worker fleet runs at once). */
export const defaultMaxUnfinished = 100;

/** emit()'s done promise (n8n-workflow does not export its type). */
export type DonePromise = NonNullable<Parameters<ITriggerFunctions['emit']>[2]>;

/**
 * A position store that writes core's position into static data only once every execution
 * emitted before it has finished (n8n settles emit's done promise then, in regular and in queue
 * mode).
 *
 * Why: n8n's main process saves static data when the trigger emits, BEFORE the execution row is
 * written (trigger-execution-context.factory: `void saveStaticData(workflow)`, then runWorkflow);
 * in queue mode, under load, those saves overtake the execution inserts still queued behind them.
 * A main SIGKILLed then restarts from a position that may count events it never turned into
 * executions (the queue-mode e2e, phase B, lost events this way). Holding the position back until the
 * executions exist errs the other way (a restart catches up some events again) and the execution
 * key (execution-key.ts) makes n8n refuse those repeats, so each event is one execution.
 */
export class ConfirmedPositionStore implements PositionStore {
  /** Settles once every execution emitted so far has finished (or failed, or was refused). */
  private barrier: Promise<unknown> = Promise.resolve();
  /** Executions emitted and not finished yet. */
  private unfinished = 0;
  /** Callers of `room()` waiting, in order. */
  private readonly waiting: Array<() => void> = [];

  /**
   * `maxUnfinished`: how many executions may be emitted and not finished before `room()` makes
   * the trigger wait. n8n has no backpressure of its own: a trigger emitting 200 events/s into a
   * main whose workers finish 25 executions/s piles thousands of executions into the main's
   * memory and database pool until its queries time out and it fails them.
   */
  constructor(
    private readonly inner: PositionStore,
    private readonly maxUnfinished = defaultMaxUnfinished,
  ) {}

  /**
   * Undefined while there is room; otherwise a promise that resolves, in call order, once an
   * execution finished. The trigger waits on it before it hands an event on, so core stops
   * reading the socket and the service's history keeps what n8n cannot take yet.
   */
  room(): Promise<void> | undefined {
    if (this.unfinished < this.maxUnfinished && this.waiting.length === 0) return undefined;
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

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
    this.unfinished++;
    const finished = () => {
      this.unfinished--;
      // Room for one more: the oldest waiter goes (it emits, taking the slot again).
      if (this.unfinished < this.maxUnfinished) this.waiting.shift()?.();
    };
    promise.then(finished, finished);
    return { promise, ...settle };
  }

  save(position: StoredPosition): Promise<void> {
    // Saves stay in order: each barrier settles after the one before it.
    return this.barrier.then(() => this.inner.save(position));
  }
}
