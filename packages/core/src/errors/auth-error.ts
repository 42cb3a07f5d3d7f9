import { ObservationError, type ObservationErrorOptions } from './observation-error.js';

const marker = 'observation-service.core.error.auth';
const symbol = Symbol.for(marker);

export interface AuthErrorOptions extends ObservationErrorOptions {
  /** HTTP status of the refusal (401/403), when there was one. */
  status?: number;
}

/** The service refused the credentials (bad or expired token, wrong password, wrong service id). */
export class AuthError extends ObservationError {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through Symbol.for() in isInstance
  private readonly [symbol] = true;
  readonly status: number | undefined;

  constructor(message: string, options?: AuthErrorOptions) {
    super('AUTH_ERROR', message, options);
    this.name = 'AuthError';
    this.status = options?.status;
  }

  static override isInstance(error: unknown): error is AuthError {
    return ObservationError.hasMarker(error, marker);
  }
}
