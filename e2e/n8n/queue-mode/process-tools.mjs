// Small process helpers of the n8n e2e tests: free ports and polling.

/** A loopback port that is free right now and stays so until its server binds it. */
export { freePort } from '../../../scripts/free-port.mjs';

/** Polls `condition` (sync or async) every `everyMs` until it holds; throws after `timeoutMs`. */
export async function until(condition, timeoutMs, everyMs = 200, what = 'condition') {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
