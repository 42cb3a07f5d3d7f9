/** Small real-socket clients for the simulator's own tests (fetch and ws, nothing mocked). */
import { once } from 'node:events';
import WebSocket from 'ws';
import type { Simulator } from '../simulator.js';

export interface HttpAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface GetOptions {
  /** 'extended' sends X-Service-Id, 'basic' does not. Default: extended unless the simulator is basic. */
  as?: 'basic' | 'extended';
  /** Token to send; null = no Authorization header. Default: the static token. */
  token?: string | null;
  headers?: Record<string, string>;
  method?: string;
  body?: unknown;
}

export async function call<T = unknown>(
  sim: Simulator,
  path: string,
  options: GetOptions = {},
): Promise<HttpAnswer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? sim.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const as = options.as ?? (sim.form === 'basic' ? 'basic' : 'extended');
  if (as === 'extended') headers['x-service-id'] = sim.serviceId;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path.startsWith('http') ? path : `${sim.apiUrl}${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: body as T, text };
}

export async function control<T = unknown>(
  sim: Simulator,
  action: string,
  body?: unknown,
): Promise<HttpAnswer<T>> {
  const response = await fetch(`${sim.siteUrl}/__control/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as T, text };
}

export function realtimeUrl(
  sim: Simulator,
  selection: string,
  token: string | null = sim.token,
  serviceId = sim.serviceId,
): string {
  const path = selection.startsWith('basic:')
    ? `/events/realtime/${selection.slice(6)}`
    : `/events/realtime/${serviceId}/${selection}`;
  return `${sim.wsUrl}${path}${token === null ? '' : `?token=${encodeURIComponent(token)}`}`;
}

/** An open realtime socket that records what it receives. */
export class Listener {
  readonly messages: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.messages.push(data.toString('utf8'));
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() }));
    });
    ws.on('error', () => {});
  }

  static async open(url: string): Promise<Listener> {
    const ws = new WebSocket(url, { maxPayload: 16 * 1024 * 1024 });
    const listener = new Listener(ws);
    await once(ws, 'open');
    return listener;
  }

  /** Objects parsed from the messages received so far. */
  json<T = Record<string, unknown>>(): T[] {
    return this.messages.map((text) => JSON.parse(text) as T);
  }

  /** Resolves once `count` messages arrived in total; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 5000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} messages, got ${this.messages.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.messages;
  }

  close(): void {
    this.ws.terminate();
  }
}

/** The HTTP answer to an upgrade the server refuses (or status 101 when it accepts). */
export async function upgradeAnswer(
  url: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
        ws.terminate();
      });
    });
    ws.on('open', () => {
      resolve({ status: 101, body: '', headers: {} });
      ws.terminate();
    });
    ws.on('error', (error) => {
      if (ws.readyState !== WebSocket.CLOSED) reject(error);
    });
  });
}

/** Sleeps a little while so that "nothing arrives" can be observed. */
export function settle(ms = 150): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
