/**
 * The ports: what differs per host (time, logging, the WebSocket implementation). Every layer of
 * core imports them from here; `client/` only picks the defaults.
 */
/** Where core writes diagnostics. Secrets are never passed to it. */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/** Time source and waiting, replaceable in tests and hosts. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * A WebSocket constructor: `ws` (the Node default) or a host's own, such as the runtime's WHATWG
 * `WebSocket`. The socket adapter accepts either shape.
 */
export type WebSocketConstructor = new (url: string, options?: Record<string, unknown>) => unknown;

const noop = (): void => undefined;

/** Fills the methods a partial host logger lacks with no-ops. */
export function completeLogger(logger: Partial<Logger> | undefined): Logger {
  return {
    debug: logger?.debug?.bind(logger) ?? noop,
    info: logger?.info?.bind(logger) ?? noop,
    warn: logger?.warn?.bind(logger) ?? noop,
    error: logger?.error?.bind(logger) ?? noop,
  };
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}
