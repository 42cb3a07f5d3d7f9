import { ObservationError, type ObservationErrorOptions } from './observation-error.js';

const marker = 'observation-service.core.error.protocol';
const symbol = Symbol.for(marker);

/** The service answered, but not in the shape the interface describes. */
export class ProtocolError extends ObservationError {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through Symbol.for() in isInstance
  private readonly [symbol] = true;
  /** A truncated sample of what was received. */
  readonly sample: string | undefined;

  constructor(message: string, options?: ObservationErrorOptions & { sample?: string }) {
    super('PROTOCOL_ERROR', message, options);
    this.name = 'ProtocolError';
    this.sample = options?.sample;
  }

  static override isInstance(error: unknown): error is ProtocolError {
    return ObservationError.hasMarker(error, marker);
  }
}
