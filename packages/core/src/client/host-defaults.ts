import type { Clock, HttpTransport, RefusalProbe, WebSocketConstructor } from '../ports.js';
import type { ClientOptions } from './options.js';

/**
 * What an entry point supplies for the ports a caller leaves out of the options. The Node entry
 * (`@observation-service/core`) fills them with undici, ws and timers; the portable entry
 * (`@observation-service/core/portable`) requires a transport and a clock and uses the runtime's
 * own WebSocket. Each entry imports only its own defaults, so a host's bundle holds no other.
 */
export interface HostDefaults {
  /** Validates the host-specific options (TLS, proxy) when the client is created; throws ValidationError. */
  check(options: ClientOptions): void;
  transport(options: ClientOptions, clock: Clock): HttpTransport;
  /** `probe` asks REST whether the current token is refused (for sockets that hide the upgrade status). */
  WebSocket(options: ClientOptions, probe: RefusalProbe): WebSocketConstructor;
  clock(options: ClientOptions): Clock;
}
