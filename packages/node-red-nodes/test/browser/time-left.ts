/**
 * The bound of a browser test's waits: the time left until the running test's own limit (its
 * vitest timeout), less a margin to say what was missing. A wait ends on evidence; a loaded
 * runner makes it take longer, and only the test's limit says when to give up, not a poll's
 * default (vitest's `expect.poll`: 1 s) or a guess (30 s).
 */
export function timeLeft(testTimeoutMs: number, marginMs = 10_000): () => number {
  const deadline = Date.now() + testTimeoutMs - marginMs;
  return () => Math.max(1_000, deadline - Date.now());
}
