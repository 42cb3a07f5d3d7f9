import type { Readable } from 'node:stream';
import { Agent, request as undiciRequest } from 'undici';
import { systemClock } from '../node/system-clock.js';
import type { Clock } from '../ports.js';
import type { HttpRequest, HttpResponse, HttpTransport } from './transport.js';

export interface UndiciTransportOptions {
  tls?: {
    /** Extra CA certificate(s) in PEM, e.g. for a deployment with a private CA. */
    ca?: string | Buffer;
    /** Verification is on unless this is explicitly `false`. */
    rejectUnauthorized?: boolean;
  };
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

/** The default transport: one undici Agent (keep-alive pool) per client. */
export function createUndiciTransport(options: UndiciTransportOptions = {}): HttpTransport {
  const clock = options.clock ?? systemClock;
  const connect: { ca?: string | Buffer; rejectUnauthorized: boolean } = {
    // Only an explicit `false` turns verification off.
    rejectUnauthorized: options.tls?.rejectUnauthorized !== false,
  };
  if (options.tls?.ca !== undefined) connect.ca = options.tls.ca;
  const agent = new Agent({
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    connections: options.connections ?? 8,
    connect,
    // Core applies its own overall timeout through the abort signal.
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      const res = await undiciRequest(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body ?? null,
        signal: req.signal,
        dispatcher: agent,
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
        () => 'closed' as const, // cancelled below: the pool closed first
      );
      const outcome = await Promise.race([agent.close().then(() => 'closed' as const), grace]);
      stopGrace.abort();
      if (outcome === 'timeout') await agent.destroy();
    },
  };
}
