/** REST-side faults and the realtime refusal window, switched on through `control`. */
export interface PendingFailure {
  remaining: number;
  status: number;
  retryAfterSeconds?: number;
}

export class FaultState {
  failure: PendingFailure | undefined;
  delayMs = 0;
  refuseUntil = 0;
  readonly #timers = new Set<NodeJS.Timeout>();

  /** The failure to answer this request with, counting it down. */
  takeFailure(): PendingFailure | undefined {
    const failure = this.failure;
    if (!failure) return undefined;
    failure.remaining--;
    if (failure.remaining <= 0) this.failure = undefined;
    return failure;
  }

  /** A delay that stop() can cancel, so no timer outlives the simulator. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve();
      }, ms);
      this.#timers.add(timer);
    });
  }

  cancelTimers(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  reset(): void {
    this.failure = undefined;
    this.delayMs = 0;
    this.refuseUntil = 0;
  }
}
