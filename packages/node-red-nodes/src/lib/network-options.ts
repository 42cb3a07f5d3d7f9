import type { ClientOptions } from '@observation-service/core';

/** The two connection settings of the `observation-server` node: ids of Node-RED's own config nodes. */
export interface NetworkConfig {
  /** Id of a `tls-config` node (CA, client certificate, verify on/off). */
  tls?: string;
  /** Id of an `http proxy` node (proxy URL, hosts reached directly, proxy credentials). */
  proxy?: string;
}

/** What this code reads of Node-RED's `tls-config` node: its own `addTLSOptions`, as MQTT and websocket use it. */
interface TlsConfigNode {
  valid?: boolean;
  addTLSOptions(options: Record<string, unknown>): Record<string, unknown>;
}

/** What this code reads of Node-RED's `http proxy` node. */
interface HttpProxyNode {
  url?: string;
  noproxy?: string[] | string;
  credentials?: { username?: string; password?: string };
}

function isTlsConfig(value: unknown): value is TlsConfigNode {
  return typeof (value as TlsConfigNode | null)?.addTLSOptions === 'function';
}

/**
 * Turns the server node's TLS and proxy config nodes into core's plain `tls` and `proxy`
 * options. Without a proxy node the environment applies (`HTTP(S)_PROXY`, `NO_PROXY`), as for
 * Node-RED's http request node. Throws (naming the field) when a chosen node is missing or
 * broken, so the error reaches the nodes using this server instead of a silent direct connection.
 */
export function networkOptions(
  config: NetworkConfig,
  getNode: (id: string) => unknown,
): Pick<ClientOptions, 'tls' | 'proxy'> {
  const out: Pick<ClientOptions, 'tls' | 'proxy'> = { proxy: 'env' };
  if (config.tls) {
    const node = getNode(config.tls);
    if (!isTlsConfig(node)) throw new Error(`TLS: the tls-config node ${config.tls} is not deployed`);
    if (node.valid === false) {
      throw new Error(
        `TLS: the tls-config node ${config.tls} could not load its certificates (see its error)`,
      );
    }
    const given = node.addTLSOptions({});
    const tls: NonNullable<ClientOptions['tls']> = {};
    for (const name of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'servername'] as const) {
      const value = given[name];
      if (value !== undefined && value !== '') (tls as Record<string, unknown>)[name] = value;
    }
    // The tls-config node's "verify server certificate" box: only an explicit false turns it off.
    if (given.rejectUnauthorized === false) tls.rejectUnauthorized = false;
    out.tls = tls;
  }
  if (config.proxy) {
    const node = getNode(config.proxy) as HttpProxyNode | null | undefined;
    if (!node || typeof node.url !== 'string' || node.url.trim() === '') {
      throw new Error(`Proxy: the http proxy node ${config.proxy} is not deployed or has no URL`);
    }
    const text = node.url.trim();
    let url = text;
    const { username, password } = node.credentials ?? {};
    if (username || password) {
      // The proxy node keeps its credentials apart; core takes them in the URL (Basic auth).
      try {
        const parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
        parsed.username = username ?? '';
        parsed.password = password ?? '';
        url = parsed.href;
      } catch {
        // Left as typed: core reports the malformed URL, without credentials.
      }
    }
    const noProxy = Array.isArray(node.noproxy) ? node.noproxy : (node.noproxy ?? '');
    out.proxy = { url, noProxy };
  }
  return out;
}
