import { type UndiciTransportOptions, undiciTransport } from '../http/undici-transport.js';
import type { HttpTransport } from '../ports.js';
import { systemClock } from './system-clock.js';

/** The default transport: one undici Agent (keep-alive pool) per client, on Node's timers unless `clock` is given. */
export function createUndiciTransport(options: UndiciTransportOptions = {}): HttpTransport {
  return undiciTransport({ ...options, clock: options.clock ?? systemClock });
}
