import { NetworkError } from './network-error.js';
import { ObservationError } from './observation-error.js';

const marker = 'observation-service.core.error.timeout';
const symbol = Symbol.for(marker);

/** The request took longer than `timeoutMs`. A kind of NetworkError. */
export class TimeoutError extends NetworkError {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through Symbol.for() in isInstance
  private readonly [symbol] = true;
  readonly timeoutMs: number;

  constructor(method: string, url: string, timeoutMs: number) {
    super(method, url, `no complete answer within ${timeoutMs} ms`, { code: 'TIMEOUT_ERROR' });
    this.name = 'TimeoutError';
    this.timeoutMs = timeoutMs;
  }

  static override isInstance(error: unknown): error is TimeoutError {
    return ObservationError.hasMarker(error, marker);
  }
}
