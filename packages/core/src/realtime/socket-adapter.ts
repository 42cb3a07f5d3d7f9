import type { WebSocketConstructor } from '../ports.js';

/** What the stream needs from a socket, whether it is a `ws` socket or a WHATWG WebSocket. */
export interface RealtimeSocket {
  /** `ws` sockets can ping (half-open detection by pong); WHATWG sockets fall back to an idle timeout. */
  readonly canPing: boolean;
  /** `ws` sockets can stop reading (backpressure reaches the server through TCP). */
  readonly canPause: boolean;
  ping(): void;
  pause(): void;
  resume(): void;
  /** Tears the connection down at once (no closing handshake: the peer may be gone). */
  terminate(): void;
  /** Settles once the socket is closed and our listeners are removed. */
  readonly closed: Promise<SocketClosed>;
}

export interface SocketClosed {
  code: number;
  reason: string;
}

export interface SocketListeners {
  onMessage(data: unknown): void;
  /** Any sign of life besides messages (a pong). */
  onPong(): void;
}

/** The upgrade failed; `status` is the HTTP status when the server answered one. */
export class UpgradeFailure extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = 'UpgradeFailure';
  }
}

interface EmitterSocket {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
  ping?: () => void;
  pause?: () => void;
  resume?: () => void;
  terminate?: () => void;
  close(code?: number): void;
}

interface BrowserSocket {
  addEventListener(event: string, listener: (event: unknown) => void): void;
  removeEventListener(event: string, listener: (event: unknown) => void): void;
  close(code?: number): void;
  binaryType?: string;
}

/**
 * Opens a socket and resolves once it is open. Rejects with `UpgradeFailure` when the connection
 * cannot be made (with the HTTP status for a refused upgrade, as `ws` reports it), or when
 * `signal` aborts first.
 */
export function openSocket(
  WebSocketCtor: WebSocketConstructor,
  url: string,
  listeners: SocketListeners,
  signal: AbortSignal,
): Promise<RealtimeSocket> {
  const raw = new WebSocketCtor(url) as unknown;
  if (raw !== null && typeof raw === 'object' && typeof (raw as EmitterSocket).on === 'function') {
    return openEmitterSocket(raw as EmitterSocket, listeners, signal);
  }
  if (
    raw !== null &&
    typeof raw === 'object' &&
    typeof (raw as BrowserSocket).addEventListener === 'function'
  ) {
    return openBrowserSocket(raw as BrowserSocket, listeners, signal);
  }
  throw new TypeError('The WebSocket constructor returned neither a ws-style nor a WHATWG-style socket');
}

/** `ws` reports a refused upgrade as an error "Unexpected server response: 401". */
export function statusFromError(error: unknown): number | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const match = /Unexpected server response: (\d{3})/.exec(message);
  return match ? Number(match[1]) : undefined;
}

function openEmitterSocket(
  ws: EmitterSocket,
  listeners: SocketListeners,
  signal: AbortSignal,
): Promise<RealtimeSocket> {
  return new Promise((resolve, reject) => {
    let opened = false;
    let failure: unknown;
    let resolveClosed: (closed: SocketClosed) => void = () => {};
    const closed = new Promise<SocketClosed>((done) => {
      resolveClosed = done;
    });
    const terminate = (): void => {
      if (typeof ws.terminate === 'function') ws.terminate();
      else ws.close();
    };
    const onOpen = (): void => {
      opened = true;
      signal.removeEventListener('abort', onAbort);
      resolve({
        canPing: typeof ws.ping === 'function',
        canPause: typeof ws.pause === 'function' && typeof ws.resume === 'function',
        ping: () => ws.ping?.(),
        pause: () => ws.pause?.(),
        resume: () => ws.resume?.(),
        terminate,
        closed,
      });
    };
    const onMessage = (data: unknown): void => listeners.onMessage(data);
    const onPong = (): void => listeners.onPong();
    const onError = (error: unknown): void => {
      // Always followed by 'close'; keep the first cause for the rejection.
      failure ??= error;
    };
    const onClose = (code: unknown, reason: unknown): void => {
      ws.removeListener('open', onOpen);
      ws.removeListener('message', onMessage);
      ws.removeListener('pong', onPong);
      ws.removeListener('close', onClose);
      // The error listener stays: `ws` may still emit a late error, which must never go unhandled.
      signal.removeEventListener('abort', onAbort);
      const closedInfo = { code: typeof code === 'number' ? code : 1006, reason: String(reason ?? '') };
      resolveClosed(closedInfo);
      if (!opened) {
        const message = failure instanceof Error ? failure.message : `closed with code ${closedInfo.code}`;
        reject(new UpgradeFailure(message, statusFromError(failure)));
      }
    };
    const onAbort = (): void => terminate();
    ws.on('open', onOpen);
    ws.on('message', onMessage);
    ws.on('pong', onPong);
    ws.on('error', onError);
    ws.on('close', onClose);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

function openBrowserSocket(
  ws: BrowserSocket,
  listeners: SocketListeners,
  signal: AbortSignal,
): Promise<RealtimeSocket> {
  return new Promise((resolve, reject) => {
    let opened = false;
    let resolveClosed: (closed: SocketClosed) => void = () => {};
    const closed = new Promise<SocketClosed>((done) => {
      resolveClosed = done;
    });
    ws.binaryType = 'arraybuffer';
    const terminate = (): void => ws.close();
    const onOpen = (): void => {
      opened = true;
      signal.removeEventListener('abort', onAbort);
      resolve({
        canPing: false,
        canPause: false,
        ping: () => {},
        pause: () => {},
        resume: () => {},
        terminate,
        closed,
      });
    };
    const onMessage = (event: unknown): void => listeners.onMessage((event as { data?: unknown }).data);
    const onError = (): void => {};
    const onClose = (event: unknown): void => {
      const { code, reason } = event as { code?: unknown; reason?: unknown };
      for (const [name, listener] of [
        ['open', onOpen],
        ['message', onMessage],
        ['error', onError],
        ['close', onClose],
      ] as const) {
        ws.removeEventListener(name, listener);
      }
      signal.removeEventListener('abort', onAbort);
      const closedInfo = { code: typeof code === 'number' ? code : 1006, reason: String(reason ?? '') };
      resolveClosed(closedInfo);
      // WHATWG sockets never expose the upgrade status, so a refusal looks like any failure.
      if (!opened) reject(new UpgradeFailure(`connection failed (code ${closedInfo.code})`, undefined));
    };
    const onAbort = (): void => terminate();
    ws.addEventListener('open', onOpen);
    ws.addEventListener('message', onMessage);
    ws.addEventListener('error', onError);
    ws.addEventListener('close', onClose);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
