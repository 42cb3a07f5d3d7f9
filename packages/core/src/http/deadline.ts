import { NetworkError } from '../errors/network-error.js';
import { ObservationError } from '../errors/observation-error.js';
import { TimeoutError } from '../errors/timeout-error.js';
import { abortReason, type Clock, sleepNotNeeded } from '../ports.js';

/**
 * One attempt's abort signal: fires when the caller aborts or when `timeoutMs` passes, and tells
 * the two apart afterwards so a timeout becomes a TimeoutError and a caller abort stays an abort.
 * The wait is the clock's cancellable sleep (no timer of its own), so a host that allows no
 * global timers (n8n Cloud) can supply its own and tests can drive time.
 */
export class Deadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  /** Cancels the clock's sleep when the attempt ends before its deadline. */
  private readonly timer = new AbortController();
  private timedOut = false;
  private readonly onParentAbort: () => void;
  private readonly onClosing: () => void;

  constructor(
    private readonly timeoutMs: number,
    private readonly parent: AbortSignal | undefined,
    clock: Clock,
    /** The client's close (see RequestContext.closing): ends the attempt with its reason too. */
    private readonly closing?: AbortSignal,
  ) {
    this.signal = this.controller.signal;
    this.onParentAbort = () => this.controller.abort(parent ? abortReason(parent) : undefined);
    this.onClosing = () => this.controller.abort(closing ? abortReason(closing) : undefined);
    if (parent?.aborted) this.onParentAbort();
    else parent?.addEventListener('abort', this.onParentAbort, { once: true });
    // A listener, not AbortSignal.any: the close signal lives as long as the client, and every
    // request of a storm would otherwise hang a dependent signal on it.
    if (closing?.aborted) this.onClosing();
    else closing?.addEventListener('abort', this.onClosing, { once: true });
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      clock.sleep(timeoutMs, this.timer.signal).then(
        () => {
          this.timedOut = true;
          this.controller.abort(new DOMException('timed out', 'TimeoutError'));
        },
        () => undefined, // stopped: the attempt ended first
      );
    }
  }

  /** Stops the timer only; the caller's abort still reaches the signal (streamed bodies). */
  stopTimer(): void {
    this.timer.abort(sleepNotNeeded);
  }

  /** Stops the timer and detaches from the caller's signal. */
  clear(): void {
    this.stopTimer();
    this.parent?.removeEventListener('abort', this.onParentAbort);
    this.closing?.removeEventListener('abort', this.onClosing);
  }

  /** Maps what a transport threw to the error core reports. */
  mapError(error: unknown, method: string, url: string): unknown {
    if (this.parent?.aborted) return abortReason(this.parent);
    if (this.closing?.aborted) return abortReason(this.closing);
    if (this.timedOut) return new TimeoutError(method, url, this.timeoutMs);
    if (ObservationError.isInstance(error)) return error;
    const detail = describeNetworkFailure(error);
    return new NetworkError(method, url, detail, { cause: error });
  }
}

function describeNetworkFailure(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const causeCode = (error.cause as { code?: unknown } | undefined)?.code;
    const codeText = typeof code === 'string' ? code : typeof causeCode === 'string' ? causeCode : undefined;
    return codeText ? `${codeText} (${error.message})` : error.message;
  }
  return String(error);
}
