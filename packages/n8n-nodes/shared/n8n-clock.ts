import type { Clock } from '@observation-service/core/portable';
import { sleep } from 'n8n-workflow';

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/**
 * Core's clock port on n8n's own timer: `sleep` from n8n-workflow (cancellable by an AbortSignal
 * since n8n 1.x). n8n Cloud's rules forbid community nodes any global timer, and every wait in
 * core (request deadlines, retry backoff, token renewal, reconnects, the heartbeat, the task
 * poll) goes through this. The abort is also watched here, so the wait ends with core's own abort
 * reason at once, even with an n8n-workflow whose `sleep` ignored the signal.
 */
export const n8nClock: Clock = {
  now: () => Date.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (!signal) return sleep(ms);
    if (signal.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(abortReason(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      sleep(ms, signal).then(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(signal.aborted ? abortReason(signal) : error);
        },
      );
    });
  },
};
