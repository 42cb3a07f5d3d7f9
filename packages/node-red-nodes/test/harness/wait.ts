/**
 * Polls `condition` until it holds, or fails after `timeoutMs`. Given `advancing` (a count of
 * work done, such as lines written), the time runs from its last change instead: a loaded runner
 * that is still getting through the work is slower, not red; a stall still fails after
 * `timeoutMs`.
 */
export async function waitUntil(
  condition: () => boolean,
  timeoutMs = 5_000,
  what = 'condition',
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
      throw new Error(`${what} not met in ${timeoutMs} ms${advancing ? ' without progress' : ''}`);
    }
    await new Promise((wake) => setTimeout(wake, 20));
  }
}
