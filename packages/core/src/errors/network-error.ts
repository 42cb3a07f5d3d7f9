import {
  ObservationError,
  type ObservationErrorCode,
  type ObservationErrorOptions,
} from './observation-error.js';
import { redactUrl } from './redact-url.js';

const marker = 'observation-service.core.error.network';
const symbol = Symbol.for(marker);

/** The request never got an HTTP answer (refused, reset, DNS, TLS). */
export class NetworkError extends ObservationError {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through Symbol.for() in isInstance
  private readonly [symbol] = true;
  readonly method: string;
  /** The request URL with secrets redacted. */
  readonly url: string;

  constructor(
    method: string,
    url: string,
    detail: string,
    options?: ObservationErrorOptions & { code?: ObservationErrorCode },
  ) {
    const safeUrl = redactUrl(url);
    super(options?.code ?? 'NETWORK_ERROR', `${method} ${safeUrl} failed: ${detail}`, options);
    this.name = 'NetworkError';
    this.method = method;
    this.url = safeUrl;
  }

  static override isInstance(error: unknown): error is NetworkError {
    return ObservationError.hasMarker(error, marker);
  }
}
