import type { Clock } from '../../ports.js';

interface Sleeper {
  at: number;
  resolve: () => void;
}

/**
 * A clock whose timers fire only when the test moves time on. A deadline is then checked to the
 * millisecond (nothing late 1 ms before it, late at it), so a deadline armed 3× or 100× too long
 * fails: waiting for "late" on the real clock would pass it, only later, and a real-time bound
 * tight enough to catch it would be at the mercy of a loaded runner's scheduling.
 */
export function manualClock(start = 0) {
  let now = start;
  const sleepers = new Set<Sleeper>();
  // The queue acts in the sleep promise's callbacks: let them (and what they hand over) run.
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const clock: Clock = {
    now: () => now,
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        const sleeper = { at: now + ms, resolve };
        sleepers.add(sleeper);
        signal?.addEventListener('abort', () => {
          sleepers.delete(sleeper);
          reject(signal.reason);
        });
      });
    },
  };
  return {
    clock,
    /**
     * Moves time on by `ms`, firing each timer at its own time, earliest first: a timer armed by
     * one that fired (the next attempt's deadline) fires within the same move when it falls in it.
     */
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const next = [...sleepers].filter((sleeper) => sleeper.at <= end).sort((a, b) => a.at - b.at)[0];
        if (next === undefined) break;
        now = Math.max(now, next.at);
        sleepers.delete(next);
        next.resolve();
        await settle();
      }
      now = end;
      await settle();
    },
    /** Timers armed and not fired or aborted: a component that should hold none is seen to. */
    timers: () => sleepers.size,
  };
}
