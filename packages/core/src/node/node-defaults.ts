import type { HostDefaults } from '../client/host-defaults.js';
import { createUndiciTransport } from '../http/undici-transport.js';
import { nodeWebSocket } from './node-websocket.js';
import { systemClock } from './system-clock.js';

/** The Node entry's defaults: undici with a keep-alive pool, `ws`, and Node's timers. */
export const nodeDefaults: HostDefaults = {
  transport: (options, clock) =>
    createUndiciTransport({ clock, ...(options.tls === undefined ? {} : { tls: options.tls }) }),
  WebSocket: (options) => nodeWebSocket(options.tls),
  clock: () => systemClock,
};
