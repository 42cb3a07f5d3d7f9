import type { Readable } from 'node:stream';
import { Agent, type Dispatcher, ProxyAgent, request as undiciRequest } from 'undici';
import type { Clock, HttpRequest, HttpResponse, HttpTransport } from '../ports.js';
import type { ProxyRoutes } from './proxy.js';
import { checkTls, type TlsOptions } from './tls-options.js';

export interface UndiciTransportOptions {
  /** CA, client certificate, verification (on unless `rejectUnauthorized: false`). */
  tls?: TlsOptions;
  /** Requests whose URL the routes send to a proxy go through it (CONNECT tunnel); see resolveProxy. */
  proxy?: ProxyRoutes;
  /** Idle keep-alive sockets are closed after this long. */
  keepAliveTimeoutMs?: number;
  /** Parallel connections per origin (history prefetch uses two). */
  connections?: number;
  /** Times the grace period of close(); default Node's timers. */
  clock?: Clock;
}

function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * The default transport: one undici Agent (keep-alive pool) per client. The clock comes from the
 * caller, so http/ picks no timers of its own: the Node entry passes Node's (see
 * node/undici-transport.ts).
 */
export function undiciTransport(options: UndiciTransportOptions & { clock: Clock }): HttpTransport {
  const clock = options.clock;
  // Only an explicit `false` turns verification off.
  const connect = checkTls(options.tls);
  const pool = {
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    connections: options.connections ?? 8,
    // Core applies its own overall timeout through the abort signal.
    headersTimeout: 0,
    bodyTimeout: 0,
  };
  const agent = new Agent({ ...pool, connect });
  // One ProxyAgent per proxy in use (with 'env', https and http may use different ones).
  const proxied = new Map<string, ProxyAgent>();
  const dispatcherFor = (url: string): Dispatcher => {
    const proxy = options.proxy?.proxyFor(new URL(url));
    if (!proxy) return agent;
    let dispatcher = proxied.get(proxy.href);
    if (!dispatcher) {
      dispatcher = new ProxyAgent({ ...pool, uri: proxy.href, requestTls: connect });
      proxied.set(proxy.href, dispatcher);
    }
    return dispatcher;
  };

  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      const res = await undiciRequest(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body ?? null,
        signal: req.signal,
        dispatcher: dispatcherFor(req.url),
      });
      const body = res.body;
      return {
        status: res.statusCode,
        headers: flattenHeaders(res.headers),
        text: () => body.text(),
        bytes: async () => new Uint8Array(await body.arrayBuffer()),
        stream: () => body as unknown as Readable,
        discard: async () => {
          await body.dump().catch(() => undefined);
        },
      };
    },
    async close() {
      // Graceful first; an unread video stream would otherwise keep close() waiting forever.
      const stopGrace = new AbortController();
      const grace = clock.sleep(1_000, stopGrace.signal).then(
        () => 'timeout' as const,
        () => 'closed' as const, // cancelled below: the pools closed first
      );
      const all: Dispatcher[] = [agent, ...proxied.values()];
      const outcome = await Promise.race([
        Promise.all(all.map((d) => d.close())).then(() => 'closed' as const),
        grace,
      ]);
      stopGrace.abort();
      if (outcome === 'timeout') await Promise.all(all.map((d) => d.destroy()));
    },
  };
}
