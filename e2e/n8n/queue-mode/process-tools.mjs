// Small process helpers of the n8n e2e tests: free ports and polling.
import { createServer } from 'node:net';

/** A loopback port that is free right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Polls `condition` (sync or async) every `everyMs` until it holds; throws after `timeoutMs`. */
export async function until(condition, timeoutMs, everyMs = 200, what = 'condition') {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
