import type { Simulator } from '@observation-service/simulator';

/** Polls `condition` until it holds, or fails after `timeoutMs`. */
export async function until(
  condition: () => boolean,
  what: string | (() => string),
  timeoutMs = 15_000,
): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) {
      throw new Error(`${typeof what === 'string' ? what : what()} not met in ${timeoutMs} ms`);
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
