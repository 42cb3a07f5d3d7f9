import type { RefusalProbe, WebSocketConstructor } from '../ports.js';

interface WhatwgSocket {
  binaryType?: string;
  addEventListener(event: string, listener: (event: unknown) => void): void;
  close(code?: number): void;
}

type Listener = (...args: unknown[]) => void;

/**
 * The runtime's WHATWG WebSocket, seen by core's realtime as a `ws`-style emitter. A WHATWG
 * socket never exposes the status of a refused upgrade, so a bad or expired token would look like
 * any network failure and be retried forever. When the socket fails before it opened, this asks
 * the REST API with the same token (`probe`, given the token the socket's URL carries, so a login
 * renewed meanwhile cannot hide the refusal) and reports a refusal the way `ws` does
 * ("Unexpected server response: 401"), so the subscription refreshes the token or fails with an
 * AuthError exactly as on Node. It has no `ping`/`pause`, so core watches it with the idle
 * watchdog and does not pause it.
 */
export function probingWebSocket(Runtime: WebSocketConstructor, probe: RefusalProbe): WebSocketConstructor {
  return class ProbingWebSocket {
    private readonly listeners = new Map<string, Set<Listener>>();
    private readonly socket: WhatwgSocket;
    private opened = false;
    private terminated = false;
    /** The token offered in the upgrade (core's realtime URLs carry it as `token`). */
    private readonly token: string | undefined;

    constructor(url: string) {
      this.socket = new Runtime(url) as WhatwgSocket;
      this.token = new URL(url).searchParams.get('token') ?? undefined;
      this.socket.binaryType = 'arraybuffer';
      this.socket.addEventListener('open', () => {
        this.opened = true;
        this.emit('open');
      });
      this.socket.addEventListener('message', (event) =>
        this.emit('message', (event as { data?: unknown }).data),
      );
      this.socket.addEventListener(
        'close',
        (event) => void this.closed(event as { code?: number; reason?: string }),
      );
    }

    private async closed(event: { code?: number; reason?: string }): Promise<void> {
      const code = typeof event.code === 'number' ? event.code : 1006;
      if (!this.opened && !this.terminated) {
        const status = await probe(this.token).catch(() => undefined);
        this.emit(
          'error',
          new Error(
            status === undefined
              ? `connection failed (code ${code})`
              : `Unexpected server response: ${status}`,
          ),
        );
      }
      this.emit('close', code, event.reason ?? '');
    }

    private emit(event: string, ...args: unknown[]): void {
      for (const listener of [...(this.listeners.get(event) ?? [])]) listener(...args);
    }

    on(event: string, listener: Listener): this {
      let set = this.listeners.get(event);
      if (!set) {
        set = new Set();
        this.listeners.set(event, set);
      }
      set.add(listener);
      return this;
    }

    removeListener(event: string, listener: Listener): this {
      this.listeners.get(event)?.delete(listener);
      return this;
    }

    close(code?: number): void {
      this.socket.close(code);
    }

    /** No probe after a teardown the subscription asked for. */
    terminate(): void {
      this.terminated = true;
      this.socket.close();
    }
  } as unknown as WebSocketConstructor;
}
