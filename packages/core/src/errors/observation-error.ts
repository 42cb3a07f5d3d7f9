/**
 * Marker symbols are registered globally (`Symbol.for`) so `isInstance` recognises errors thrown by
 * another loaded copy of this package: n8n and Node-RED hosts do end up with duplicates, and
 * `instanceof` fails across copies.
 */
const marker = 'observation-service.core.error';
const symbol = Symbol.for(marker);

/** Stable machine-readable error codes; these never change between versions. */
export type ObservationErrorCode =
  | 'HTTP_ERROR'
  | 'AUTH_ERROR'
  | 'VALIDATION_ERROR'
  | 'NETWORK_ERROR'
  | 'TIMEOUT_ERROR'
  | 'PROTOCOL_ERROR'
  | 'CLIENT_CLOSED'
  | (string & {});

export interface ObservationErrorOptions {
  cause?: unknown;
}

/** Base of every error thrown by the Observation Service client. */
export class ObservationError extends Error {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through Symbol.for() in isInstance
  private readonly [symbol] = true;
  readonly code: ObservationErrorCode;

  constructor(code: ObservationErrorCode, message: string, options?: ObservationErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ObservationError';
    this.code = code;
  }

  /** True for errors of this package, including errors created by another loaded copy of it. */
  static isInstance(error: unknown): error is ObservationError {
    return ObservationError.hasMarker(error, marker);
  }

  protected static hasMarker(error: unknown, markerName: string): boolean {
    const markerSymbol = Symbol.for(markerName);
    return (
      error != null &&
      typeof error === 'object' &&
      markerSymbol in error &&
      (error as Record<symbol, unknown>)[markerSymbol] === true
    );
  }
}
