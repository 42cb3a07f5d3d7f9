import { abortReason, type Clock } from '../ports.js';

/**
 * The Node default clock: `Date.now` and a cancellable `setTimeout`. Only the Node entry point
 * uses it; hosts that allow no global timers (n8n Cloud) pass their own clock to the portable
 * entry, so this file is never in their bundle.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
  turn(): Promise<void> {
    // Two checks of the loop: undici writes a request on an idle keep-alive socket only from an
    // immediate of its own (it first lets the loop show whether the server closed the socket), and
    // the first immediate may run before that one; the second is queued after it.
    return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
  },
};
