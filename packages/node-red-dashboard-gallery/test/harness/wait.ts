import type { Simulator } from '@observation-service/simulator';

/**
 * Polls `condition` until it holds, or fails after `timeoutMs`. Given `advancing` (a count of work
 * done), the time runs from its last change instead: a loaded runner still getting through the
 * work is slower, not red; a stall still fails after `timeoutMs`.
 */
export async function until(
  condition: () => boolean,
  what: string | (() => string),
  timeoutMs = 15_000,
  advancing?: () => number,
): Promise<void> {
  let since = Date.now();
  let last = advancing?.();
  while (!condition()) {
    const now = advancing?.();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since > timeoutMs) {
      const progress = advancing ? ' without progress' : '';
      throw new Error(`${typeof what === 'string' ? what : what()} not met in ${timeoutMs} ms${progress}`);
    }
    await new Promise((wake) => setTimeout(wake, 20));
  }
}

/**
 * Live events reach only open realtime sockets: emit after the deployed events node has
 * connected (and, between tests, after the previous one has gone).
 */
export function socketsOpen(sim: Simulator, count: number): Promise<void> {
  return until(() => sim.control.stats().openSockets === count, `${count} open realtime sockets`);
}
