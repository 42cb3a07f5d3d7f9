import type { HostDefaults } from '../client/host-defaults.js';
import { ValidationError } from '../errors/validation-error.js';
import { checkTls, isCustomTls } from '../http/tls-options.js';
import type { WebSocketConstructor } from '../ports.js';
import { probingWebSocket } from './probing-websocket.js';

/**
 * The portable entry's defaults. It holds no HTTP client and no timer of its own (a host such as
 * n8n Cloud allows neither Node built-ins nor global timers), so the host must pass `transport`
 * and `clock`; realtime uses the runtime's own WHATWG `WebSocket` (Node ≥ 22, browsers, Deno,
 * Bun), which takes no TLS options and sends no ping frames: the subscription then watches for
 * silence instead (see realtime/socket-adapter.ts).
 */
export const portableDefaults: HostDefaults = {
  check(options) {
    const proxy: unknown = options.proxy;
    if (proxy !== undefined && proxy !== null && proxy !== false) {
      throw new ValidationError(
        'proxy',
        typeof options.proxy === 'string' ? `"${options.proxy}"` : 'a proxy',
        "nothing with the portable entry: the host's transport carries its own proxy, and the runtime WebSocket cannot use one",
      );
    }
  },
  transport() {
    throw new ValidationError(
      'transport',
      'nothing',
      "an HttpTransport built on the host's HTTP client (the portable entry has none of its own)",
    );
  },
  clock() {
    throw new ValidationError(
      'clock',
      'nothing',
      "a Clock (now and a cancellable sleep) built on the host's timers (the portable entry has none of its own)",
    );
  },
  WebSocket(options, probe) {
    const tls = options.tls;
    if (tls && isCustomTls(checkTls(tls))) {
      throw new ValidationError(
        'tls',
        tls.rejectUnauthorized === false ? 'rejectUnauthorized: false' : 'custom TLS settings',
        "no TLS options with the runtime's WebSocket: use a certificate the runtime trusts (e.g. NODE_EXTRA_CA_CERTS) or pass a WebSocket constructor that applies them",
      );
    }
    if (typeof WebSocket !== 'function') {
      throw new ValidationError(
        'WebSocket',
        'nothing, and this runtime has no global WebSocket',
        'a WebSocket constructor (Node ≥ 22 has one built in)',
      );
    }
    return probingWebSocket(WebSocket as unknown as WebSocketConstructor, probe);
  },
};
