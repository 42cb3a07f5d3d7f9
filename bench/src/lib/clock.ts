/**
 * One clock for every process of the suite. `process.hrtime` reads CLOCK_MONOTONIC, which on
 * Linux is system-wide: a time taken in the simulator's process and one taken in a client's
 * process can be subtracted directly (no wall-clock skew, no NTP steps).
 */
export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it holds; fails naming `what` after `timeoutMs`. */
export async function until(
  check: () => boolean,
  what: string,
  timeoutMs = 60_000,
  pollMs = 2,
): Promise<void> {
  const started = now();
  while (!check()) {
    if (now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(pollMs);
  }
}
