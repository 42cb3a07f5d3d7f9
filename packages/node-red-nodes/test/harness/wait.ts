/** Polls `condition` until it holds, or fails after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what} not met in ${timeoutMs} ms`);
    await new Promise((wake) => setTimeout(wake, 20));
  }
}
