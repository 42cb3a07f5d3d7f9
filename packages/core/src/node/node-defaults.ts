import type { HostDefaults } from '../client/host-defaults.js';
import type { ClientOptions } from '../client/options.js';
import { resolveProxy } from '../http/proxy.js';
import { checkTls } from '../http/tls-options.js';
import { undiciTransport } from '../http/undici-transport.js';
import { nodeWebSocket } from './node-websocket.js';
import { systemClock } from './system-clock.js';

/**
 * One TLS and proxy setting for REST, media and the realtime socket. Read per client (each
 * options object once): `proxy: 'env'` reads the environment when the client is created.
 */
const networks = new WeakMap<ClientOptions, ReturnType<typeof readNetwork>>();
function readNetwork(options: ClientOptions) {
  return { tls: checkTls(options.tls), proxy: resolveProxy(options.proxy) };
}
function network(options: ClientOptions) {
  let found = networks.get(options);
  if (!found) {
    found = readNetwork(options);
    networks.set(options, found);
  }
  return found;
}

/** The Node entry's defaults: undici with a keep-alive pool, `ws`, and Node's timers. */
export const nodeDefaults: HostDefaults = {
  check: (options) => void network(options),
  transport: (options, clock) => {
    const { tls, proxy } = network(options);
    return undiciTransport({ clock, tls, ...(proxy ? { proxy } : {}) });
  },
  WebSocket: (options) => {
    const { tls, proxy } = network(options);
    return nodeWebSocket(tls, proxy);
  },
  clock: () => systemClock,
};
