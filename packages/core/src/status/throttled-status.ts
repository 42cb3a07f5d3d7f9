import type { Clock } from '../ports.js';

export interface ThrottledStatusOptions {
  /** `show` runs at most once per this many milliseconds through `request()`. */
  intervalMs: number;
  /**
   * Where the time and the one pending timer come from: `systemClock` on Node, the host's own
   * clock where global timers are not allowed (the portable entry).
   */
  clock: Clock;
}

export interface ThrottledStatus {
  /**
   * Something changed: runs `show` now if it last ran `intervalMs` ago or more, else once when
   * that much time has passed, however many requests come meanwhile. The last request is always
   * followed by a `show`, so the latest state is what stays on screen.
   */
  request(): void;
  /** Runs `show` at once (a change the user must see now) and drops a pending one it makes redundant. */
  now(): void;
  /** No `show` after this; the pending timer, if any, is cancelled so nothing outlives the host's node. */
  close(): void;
}

/**
 * Rate-limits a status display (a node's status line, a progress text) that would otherwise
 * redraw on every one of thousands of events per second. Generic: `show` reads whatever state the
 * caller keeps when it runs, so a delayed show never displays a stale value.
 */
export function createThrottledStatus(show: () => void, options: ThrottledStatusOptions): ThrottledStatus {
  const { intervalMs, clock } = options;
  let lastShownAt = Number.NEGATIVE_INFINITY;
  let pending: AbortController | undefined;
  let closed = false;

  const showNow = () => {
    if (closed) return;
    pending?.abort();
    pending = undefined;
    lastShownAt = clock.now();
    show();
  };

  return {
    request() {
      if (pending || closed) return;
      const wait = intervalMs - (clock.now() - lastShownAt);
      if (wait <= 0) return showNow();
      const timer = new AbortController();
      pending = timer;
      clock.sleep(wait, timer.signal).then(
        () => {
          if (pending !== timer) return;
          pending = undefined;
          showNow();
        },
        // Aborted by now() or close(): the show it stood for is done or no longer wanted.
        () => undefined,
      );
    },
    now: showNow,
    close() {
      closed = true;
      pending?.abort();
      pending = undefined;
    },
  };
}
