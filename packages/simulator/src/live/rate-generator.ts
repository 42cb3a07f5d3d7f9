/**
 * Emits `rate` events per second across the active tasks from one coarse timer: the due count
 * accumulates per tick, so any rate (0.5/s or 20,000/s) costs one timer, not one per event.
 */
import type { EventPump } from './event-pump.js';

const TICK_MS = 100;

export class RateGenerator {
  readonly #pump: EventPump;
  #rate = 0;
  #due = 0;
  #last = 0;
  /** Events up to this time were emitted: the next ones happened after it. */
  #emittedUpTo = 0;
  #busy = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(pump: EventPump) {
    this.#pump = pump;
  }

  get rate(): number {
    return this.#rate;
  }

  setRate(eventsPerSecond: number): void {
    if (typeof eventsPerSecond !== 'number' || !Number.isFinite(eventsPerSecond) || eventsPerSecond < 0) {
      throw new RangeError(`setRate: eventsPerSecond must be a number >= 0, got ${String(eventsPerSecond)}`);
    }
    this.#rate = eventsPerSecond;
    if (eventsPerSecond === 0) {
      this.stop();
      return;
    }
    if (!this.#timer) {
      this.#last = Date.now();
      this.#emittedUpTo = this.#last;
      this.#due = 0;
      this.#timer = setInterval(() => this.#tick(), TICK_MS);
    }
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    const now = Date.now();
    this.#due += (this.#rate * (now - this.#last)) / 1000;
    this.#last = now;
    if (this.#busy) return;
    const count = Math.floor(this.#due);
    if (count < 1) return;
    this.#due -= count;
    this.#busy = true;
    // A tick that comes late (a busy machine) or was skipped while busy still spreads what it
    // owes over the time it covers, instead of stamping all of it "now" after a gap.
    const occurred = { fromMs: this.#emittedUpTo, toMs: now };
    this.#emittedUpTo = now;
    this.#pump
      .emit(count, {}, false, occurred)
      .catch(() => {
        // No tasks at all: nothing to emit until one is added.
      })
      .finally(() => {
        this.#busy = false;
      });
  }
}
