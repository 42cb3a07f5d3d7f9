import { buildClient, type ObservationClient } from '../client/build-client.js';
import type { ClientOptions } from '../client/options.js';
import { nodeDefaults } from './node-defaults.js';

/**
 * Creates a client for Node: undici (keep-alive pool) for HTTP, `ws` for realtime and Node's
 * timers, unless the options pass the host's own. Validates the options (throws
 * ValidationError) but sends nothing yet.
 */
export function createClient(options: ClientOptions): ObservationClient {
  return buildClient(options, nodeDefaults);
}
