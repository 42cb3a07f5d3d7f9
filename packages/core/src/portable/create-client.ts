import { buildClient, type ObservationClient } from '../client/build-client.js';
import type { ClientOptions } from '../client/options.js';
import { portableDefaults } from './portable-defaults.js';

/**
 * Creates a client that needs no Node built-in and no global timer: the host passes `transport`
 * (its own HTTP client) and `clock` (its own timers); realtime uses the runtime's WebSocket
 * unless `WebSocket` is given. Validates the options (throws ValidationError) but sends nothing
 * yet.
 */
export function createClient(options: ClientOptions): ObservationClient {
  return buildClient(options, portableDefaults);
}
