import { nodeDefaults } from '../node/node-defaults.js';
import { buildClient, type ObservationClient } from './build-client.js';
import type { ClientOptions } from './options.js';

export type { EventsApi, MediaApi, ObservationClient } from './build-client.js';
export { trackedSubscriptions } from './build-client.js';

/**
 * Creates a client for Node: undici (keep-alive pool) for HTTP, `ws` for realtime and Node's
 * timers, unless the options pass the host's own. Validates the options (throws
 * ValidationError) but sends nothing yet.
 */
export function createClient(options: ClientOptions): ObservationClient {
  return buildClient(options, nodeDefaults);
}
