export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

/**
 * Delay before reconnect attempt `attempt` (1 = first retry): "full jitter", a uniform pick
 * between 0 and min(maxMs, baseMs * 2^(attempt-1)). Spreading retries over the whole window keeps
 * many clients that lost the same server from coming back in lockstep.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** exponent);
  return Math.floor(random() * ceiling);
}
