import { ObservationError } from './observation-error.js';

const marker = 'observation-service.core.error.validation';
const symbol = Symbol.for(marker);

/** An input was refused before any request was sent. */
export class ValidationError extends ObservationError {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through Symbol.for() in isInstance
  private readonly [symbol] = true;
  /** Name of the parameter, as the caller wrote it (e.g. `startTime`, `taskId`). */
  readonly parameter: string;
  /** A short, safe description of the value given (secrets are never echoed). */
  readonly given: string;
  /** What would have been accepted. */
  readonly allowed: string;

  constructor(parameter: string, given: string, allowed: string) {
    super('VALIDATION_ERROR', `Invalid ${parameter}: got ${given}; expected ${allowed}`);
    this.name = 'ValidationError';
    this.parameter = parameter;
    this.given = given;
    this.allowed = allowed;
  }

  static override isInstance(error: unknown): error is ValidationError {
    return ObservationError.hasMarker(error, marker);
  }
}
