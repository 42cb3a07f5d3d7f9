/**
 * The realtime WebSocket side: upgrade checks (refused with real HTTP statuses), the open
 * sockets with their task selections, keep-alive, and the socket-level faults.
 *
 * With `upgradeDelayMs` every upgrade is answered that late, as behind a slow proxy or a busy
 * service: until then the socket is no receiver, so what is published meanwhile goes to the other
 * sockets and history, never to it.
 *
 * Pings are answered by hand (`autoPong: false`) so that a half-open socket can stay connected
 * while it neither sends nor pongs: that is what a client's heartbeat watchdog has to detect.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { ServerContext } from '../server-context.js';
import type { Form } from '../types.js';
import { MALFORMED_KINDS, type MalformedKind, malformedFrame } from './malformed-frames.js';
import { parseRealtimePath, type RealtimeSelection } from './realtime-path.js';
import { refuseUpgrade } from './upgrade-refusal.js';

export interface RealtimeClient {
  readonly ws: WebSocket;
  readonly socket: Socket;
  readonly form: Form;
  /** undefined = every task. */
  readonly taskIds: ReadonlySet<number> | undefined;
  halfOpen: boolean;
}

interface Refusal {
  status: number;
  detail: string;
  headers?: Record<string, string>;
}

export class RealtimeHub {
  readonly clients = new Set<RealtimeClient>();
  connectionsRefused = 0;
  /** How long each upgrade waits before it is answered (accepted or refused). */
  upgradeDelayMs: number;
  readonly #ctx: ServerContext;
  /** Upgrades waiting out `upgradeDelayMs`, with their timers, so close() can end them. */
  readonly #waiting = new Map<Duplex, NodeJS.Timeout>();
  readonly #wss: WebSocketServer;
  readonly #pingTimer: NodeJS.Timeout | undefined;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
    this.#wss = new WebSocketServer({
      noServer: true,
      autoPong: false,
      clientTracking: false,
      perMessageDeflate: false,
      // Clients send nothing but control frames; a large message is a client bug.
      maxPayload: 64 * 1024,
    });
    this.upgradeDelayMs = ctx.options.upgradeDelayMs;
    if (ctx.options.pingIntervalMs > 0) {
      this.#pingTimer = setInterval(() => this.#pingAll(), ctx.options.pingIntervalMs);
      this.#pingTimer.unref();
    }
  }

  /** Upgrades received and not answered yet (waiting out `upgradeDelayMs`). */
  get upgradesPending(): number {
    return this.#waiting.size;
  }

  /** The `upgrade` listener of the HTTP server. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => {});
    const delayMs = this.upgradeDelayMs;
    if (delayMs <= 0) {
      this.#answerUpgrade(req, socket, head);
      return;
    }
    // Read while waiting, so a client that gives up is noticed (and its socket freed); a client
    // sends nothing before the answer, but whatever arrives is handed on with `head`.
    const early: Buffer[] = [head];
    const keep = (chunk: Buffer) => early.push(chunk);
    const timer = setTimeout(() => {
      this.#waiting.delete(socket);
      socket.off('close', gone);
      socket.off('end', gone);
      socket.off('data', keep);
      // Synchronously on: ws takes the socket over (and its data) before any further I/O.
      if (!socket.destroyed) this.#answerUpgrade(req, socket, Buffer.concat(early));
    }, delayMs);
    const gone = () => {
      clearTimeout(timer);
      this.#waiting.delete(socket);
      socket.destroy();
    };
    socket.on('data', keep);
    socket.once('end', gone);
    socket.once('close', gone);
    this.#waiting.set(socket, timer);
  }

  /** Checks the upgrade and answers it: refused with an HTTP status, or accepted as a receiver. */
  #answerUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const checked = this.#check(req);
    if ('status' in checked) {
      this.connectionsRefused++;
      refuseUpgrade(socket, checked.status, checked.detail, checked.headers);
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      const client: RealtimeClient = {
        ws,
        socket: socket as Socket,
        form: checked.form,
        taskIds: checked.taskIds,
        halfOpen: false,
      };
      this.clients.add(client);
      this.#ctx.counters.connectionsTotal++;
      ws.on('ping', (data) => {
        if (!client.halfOpen) ws.pong(data);
      });
      ws.on('error', () => {});
      ws.on('close', () => this.clients.delete(client));
    });
  }

  /** Path (404), refusal window (503), token (401), service id (403), in that order. */
  #check(req: IncomingMessage): RealtimeSelection | Refusal {
    const { options, faults, tokens } = this.#ctx;
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const base = `${options.prefix}/events/realtime/`;
    if (!url.pathname.startsWith(base)) return { status: 404, detail: 'Not Found' };
    const waitMs = faults.refuseUntil - Date.now();
    if (waitMs > 0) {
      return {
        status: 503,
        detail: 'Service Unavailable',
        headers: { 'Retry-After': String(Math.ceil(waitMs / 1000)) },
      };
    }
    const selection = parseRealtimePath(url.pathname.slice(base.length), options.form);
    if ('error' in selection) return { status: 404, detail: selection.error };
    const check = tokens.check(url.searchParams.get('token'));
    if (check.status === 'expired') return { status: 401, detail: 'Token has expired' };
    if (check.status === 'invalid') return { status: 401, detail: 'Could not validate credentials' };
    if (selection.form === 'extended' && selection.serviceId !== options.serviceId) {
      return { status: 403, detail: 'Unknown service id' };
    }
    return selection;
  }

  /** Open sockets that still receive events (not half-open). */
  receivers(): RealtimeClient[] {
    const out: RealtimeClient[] = [];
    for (const client of this.clients) if (!client.halfOpen && client.ws.readyState === 1) out.push(client);
    return out;
  }

  /** Cuts every socket without a close frame (the client sees 1006). */
  dropConnections(): void {
    for (const client of this.clients) client.ws.terminate();
  }

  /** Closes every socket with a close frame carrying `code` and `reason`. */
  closeWith(code: number, reason = ''): void {
    const valid =
      (code >= 1000 && code <= 1014 && ![1004, 1005, 1006].includes(code)) || (code >= 3000 && code <= 4999);
    if (!Number.isInteger(code) || !valid) {
      throw new RangeError(
        `closeWith: code must be 1000-1014 (not 1004-1006) or 3000-4999, got ${code}; use dropConnections() for an abnormal close`,
      );
    }
    if (Buffer.byteLength(reason) > 123) throw new RangeError('closeWith: reason must be at most 123 bytes');
    for (const client of this.clients) client.ws.close(code, reason);
  }

  /** Current sockets stay open but receive nothing and answer no ping; new connections are normal. */
  halfOpen(): void {
    for (const client of this.clients) client.halfOpen = true;
  }

  sendMalformed(kind: MalformedKind, count = 1): void {
    if (!MALFORMED_KINDS.includes(kind)) {
      throw new RangeError(
        `sendMalformed: kind must be one of ${MALFORMED_KINDS.join(', ')}, got ${JSON.stringify(kind)}`,
      );
    }
    if (!Number.isInteger(count) || count < 1)
      throw new RangeError(`sendMalformed: count must be a positive integer, got ${count}`);
    for (const client of this.receivers()) {
      for (let n = 0; n < count; n++) client.ws.send(malformedFrame(kind, n));
    }
  }

  resetFaults(): void {
    for (const client of this.clients) client.halfOpen = false;
  }

  close(): void {
    if (this.#pingTimer) clearInterval(this.#pingTimer);
    for (const [socket, timer] of this.#waiting) {
      clearTimeout(timer);
      socket.destroy();
    }
    this.#waiting.clear();
    for (const client of this.clients) client.ws.terminate();
    this.clients.clear();
    this.#wss.close();
  }

  #pingAll(): void {
    for (const client of this.receivers()) client.ws.ping();
  }
}
