import WebSocket from 'ws';
import type { ProxyRoutes } from '../http/proxy.js';
import { ProxyTunnelAgent } from '../http/proxy-tunnel.js';
import { isCustomTls, type TlsConnectOptions } from '../http/tls-options.js';
import type { RealtimeWebSocketConstructor } from '../realtime/context.js';

/**
 * `ws` with the client's TLS settings and proxy applied: a proxied connection goes through a
 * CONNECT tunnel (see ProxyTunnelAgent), chosen per URL so NO_PROXY is honoured.
 */
export function nodeWebSocket(
  tls: TlsConnectOptions,
  proxy: ProxyRoutes | undefined,
): RealtimeWebSocketConstructor {
  if (!isCustomTls(tls) && !proxy) return WebSocket;
  return class ConfiguredWebSocket extends WebSocket {
    constructor(url: string, options?: Record<string, unknown>) {
      const target = new URL(url);
      const via = proxy?.proxyFor(target);
      const secure = target.protocol === 'wss:' || target.protocol === 'https:';
      super(url, { ...tls, ...(via ? { agent: new ProxyTunnelAgent(via, secure, tls) } : {}), ...options });
    }
  };
}
