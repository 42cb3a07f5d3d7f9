import { Agent, type AgentOptions, type ClientRequestArgs } from 'node:http';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { proxyAuthorization } from './proxy.js';
import type { TlsConnectOptions } from './tls-options.js';

type Done = (error: Error | null, stream: Duplex) => void;

/** Longest proxy answer to a CONNECT we read before giving up (a real one is a few lines). */
const MAX_ANSWER = 16 * 1024;

/**
 * An `http.Agent` that opens every connection as a `CONNECT` tunnel through an HTTP(S) proxy,
 * then speaks TLS to the target through the tunnel when the target is https/wss. Used for the
 * realtime WebSocket (`ws` accepts an `agent`); REST goes through undici's own ProxyAgent.
 * Node calls `createConnection(options, callback)` and waits for the callback when it returns
 * nothing, which lets the tunnel be set up asynchronously.
 */
export class ProxyTunnelAgent extends Agent {
  readonly #proxy: URL;
  readonly #secure: boolean;
  readonly #tls: TlsConnectOptions;

  constructor(proxy: URL, secureTarget: boolean, tls: TlsConnectOptions, options: AgentOptions = {}) {
    super({ ...options, keepAlive: false });
    this.#proxy = proxy;
    this.#secure = secureTarget;
    this.#tls = tls;
    // http(s).request checks that the agent speaks the request's protocol.
    (this as unknown as { protocol: string }).protocol = secureTarget ? 'https:' : 'http:';
  }

  override createConnection(options: ClientRequestArgs, done?: Done): undefined {
    if (!done) throw new Error('ProxyTunnelAgent connects asynchronously: a callback is required');
    const host = String(options.host ?? options.hostname ?? 'localhost').replace(/^\[|\]$/g, '');
    const port = Number(options.port) || (this.#secure ? 443 : 80);
    this.#tunnel(host, port).then(
      (socket) => {
        if (!this.#secure) return done(null, socket);
        // `host` is what the certificate is checked against: the target, never the proxy.
        const secured = tlsConnect({
          ...this.#tls,
          socket,
          host,
          servername: this.#tls.servername ?? (isIP(host) ? undefined : host),
        });
        // The TLS handshake's errors surface on the returned socket, where ws reports them.
        done(null, secured);
      },
      (error: Error) => done(error, undefined as unknown as Duplex),
    );
    return undefined;
  }

  /** Connects to the proxy and asks it for a tunnel to host:port; resolves with the raw socket. */
  #tunnel(host: string, port: number): Promise<Socket> {
    const proxy = this.#proxy;
    const proxyPort = Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80);
    const proxyHost = proxy.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      const socket: Socket =
        proxy.protocol === 'https:'
          ? tlsConnect({ host: proxyHost, port: proxyPort, servername: proxyHost })
          : netConnect({ host: proxyHost, port: proxyPort });
      const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
      const auth = proxyAuthorization(proxy);
      let answer = Buffer.alloc(0);
      const fail = (error: Error) => {
        socket.destroy();
        reject(error);
      };
      // 'readable' + read(), not 'data': the socket must not be left flowing with nobody
      // listening once the tunnel is handed over (its first bytes would be lost).
      const onReadable = () => {
        let chunk: Buffer | null = socket.read() as Buffer | null;
        while (chunk !== null) {
          answer = Buffer.concat([answer, chunk]);
          chunk = socket.read() as Buffer | null;
        }
        const end = answer.indexOf('\r\n\r\n');
        if (end < 0) {
          if (answer.length > MAX_ANSWER) fail(new Error('proxy: CONNECT answer too long'));
          return;
        }
        socket.off('readable', onReadable);
        socket.off('error', fail);
        socket.off('end', closedEarly);
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer.subarray(0, end).toString('latin1'))?.[1];
        if (status !== '200') {
          // Never the proxy URL itself: it may hold credentials.
          return fail(
            new Error(
              `proxy ${proxyHost}:${proxyPort} refused the tunnel to ${authority} (HTTP ${status ?? '?'})`,
            ),
          );
        }
        // Bytes after the answer already belong to the target.
        const rest = answer.subarray(end + 4);
        if (rest.length > 0) socket.unshift(rest);
        resolve(socket);
      };
      const closedEarly = () =>
        fail(new Error(`proxy ${proxyHost}:${proxyPort} closed before answering CONNECT`));
      socket.on('readable', onReadable);
      socket.once('error', fail);
      socket.once('end', closedEarly);
      socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
        const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
        if (auth) lines.push(`Proxy-Authorization: ${auth}`);
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      });
    });
  }
}
