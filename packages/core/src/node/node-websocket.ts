import WebSocket from 'ws';
import type { ClientOptions } from '../client/options.js';
import type { RealtimeWebSocketConstructor } from '../realtime/context.js';

/** `ws` with the client's TLS settings (custom CA, explicit rejectUnauthorized) applied. */
export function nodeWebSocket(tls: ClientOptions['tls']): RealtimeWebSocketConstructor {
  if (!tls || (tls.ca === undefined && tls.rejectUnauthorized === undefined)) return WebSocket;
  const tlsOptions: Record<string, unknown> = { rejectUnauthorized: tls.rejectUnauthorized !== false };
  if (tls.ca !== undefined) tlsOptions.ca = tls.ca;
  return class TlsWebSocket extends WebSocket {
    constructor(url: string, options?: Record<string, unknown>) {
      super(url, { ...tlsOptions, ...options });
    }
  };
}
