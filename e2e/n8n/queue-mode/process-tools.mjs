// Small process helpers of the n8n e2e tests: free ports and polling.

/** A loopback port that is free right now and stays so until its server binds it. */
export { freePort } from '../../../scripts/free-port.mjs';

/**
 * Polls `condition` (sync or async) every `everyMs` until it holds; throws after `timeoutMs`.
 * Given `advancing` (a value that changes as the work goes on, such as execution counts), the
 * time runs from its last change instead: a loaded runner still getting through the work is
 * slower, not red, and a stall still fails after `timeoutMs`.
 */
export async function until(condition, timeoutMs, everyMs = 200, what = 'condition', advancing) {
  let since = Date.now();
  let last = await advancing?.();
  while (!(await condition())) {
    const now = await advancing?.();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since > timeoutMs) {
      throw new Error(`${what} not met within ${timeoutMs} ms${advancing ? ' without progress' : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
