import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { HttpsProxyAgent } from 'https-proxy-agent';
import WebSocket from 'ws';
import { type ProxyRoutes, proxyAuthorization } from '../http/proxy.js';
import { isCustomTls, type TlsConnectOptions } from '../http/tls-options.js';
import type { WebSocketConstructor } from '../ports.js';

/**
 * An agent that opens the socket as a `CONNECT` tunnel through the proxy. `ws` hands its own
 * options (the TLS ones included) to the agent, which applies them to the service's TLS
 * handshake inside the tunnel; the proxy's own connection keeps Node's defaults.
 */
function tunnelThrough(proxy: URL): HttpsProxyAgent<string> {
  // Credentials go as a header rather than in the URL: the agent's debug output
  // (DEBUG=https-proxy-agent) prints the proxy URL, and a password must not end up in a log.
  const bare = new URL(proxy.href);
  bare.username = '';
  bare.password = '';
  const authorization = proxyAuthorization(proxy);
  return new HttpsProxyAgent(
    bare,
    authorization ? { headers: { 'Proxy-Authorization': authorization } } : {},
  );
}

/**
 * The socket's options through a proxy. The agent gives the service's TLS handshake no host, so
 * for a service addressed by IP (no SNI name) Node would check the certificate against the
 * proxy's host name: the check is pinned to the service's own host (or `tls.servername`).
 */
function throughProxy(agent: HttpsProxyAgent<string>, target: URL, tls: TlsConnectOptions) {
  const expected = tls.servername ?? target.hostname.replace(/^\[|\]$/g, '');
  return {
    agent,
    checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(expected, cert),
  };
}

/**
 * `ws` with the client's TLS settings and proxy applied; the proxy is chosen per URL, so
 * NO_PROXY is honoured.
 */
export function nodeWebSocket(tls: TlsConnectOptions, proxy: ProxyRoutes | undefined): WebSocketConstructor {
  if (!isCustomTls(tls) && !proxy) return WebSocket;
  // One agent per proxy in use (with 'env', wss and ws may use different ones); it keeps no
  // sockets open between connections.
  const agents = new Map<string, HttpsProxyAgent<string>>();
  const agentFor = (via: URL) => {
    let agent = agents.get(via.href);
    if (!agent) {
      agent = tunnelThrough(via);
      agents.set(via.href, agent);
    }
    return agent;
  };
  return class ConfiguredWebSocket extends WebSocket {
    constructor(url: string, options?: Record<string, unknown>) {
      const target = new URL(url);
      const via = proxy?.proxyFor(target);
      super(url, { ...tls, ...(via ? throughProxy(agentFor(via), target, tls) : {}), ...options });
    }
  };
}
