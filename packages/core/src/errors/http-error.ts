import { ObservationError } from './observation-error.js';
import { redactUrl } from './redact-url.js';

const marker = 'observation-service.core.error.http';
const symbol = Symbol.for(marker);

export interface HttpErrorOptions {
  status: number;
  method: string;
  url: string;
  /** Parsed JSON body, or the (truncated) text of the body. */
  body?: unknown;
  /** A readable reason taken from the body (`detail`, `message`, text or HTML title). */
  reason?: string;
  /** Delay the server asked for with `Retry-After`, in ms. */
  retryAfterMs?: number;
  cause?: unknown;
}

/** The service answered with a non-success HTTP status. */
export class HttpError extends ObservationError {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through Symbol.for() in isInstance
  private readonly [symbol] = true;
  readonly status: number;
  readonly method: string;
  /** The request URL with `token` / `auth_token` values replaced by `***`. */
  readonly url: string;
  readonly body: unknown;
  readonly reason: string | undefined;
  /** Whether repeating the same request later may succeed (408, 429, 5xx). */
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(options: HttpErrorOptions) {
    const url = redactUrl(options.url);
    const reason = options.reason ? `: ${options.reason}` : '';
    super('HTTP_ERROR', `${options.method} ${url} failed with HTTP ${options.status}${reason}`, {
      cause: options.cause,
    });
    this.name = 'HttpError';
    this.status = options.status;
    this.method = options.method;
    this.url = url;
    this.body = options.body;
    this.reason = options.reason;
    this.retryable = isRetryableStatus(options.status);
    this.retryAfterMs = options.retryAfterMs;
  }

  static override isInstance(error: unknown): error is HttpError {
    return ObservationError.hasMarker(error, marker);
  }
}

/** 408, 429 and 5xx are worth repeating; other statuses will not change by waiting. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}
