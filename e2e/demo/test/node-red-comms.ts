/**
 * The editor's own live channel (`/comms`): the same debug messages and node statuses the
 * editor shows, read without a browser. The demo runs without admin auth on loopback, so no
 * token is sent.
 */
export interface DebugMessage {
  id: string;
  name?: string;
  topic?: string;
  property?: string;
  msg: string;
  format?: string;
}

export interface NodeStatus {
  text?: string;
  fill?: string;
  shape?: string;
}

export class NodeRedComms {
  readonly debug: DebugMessage[] = [];
  readonly status = new Map<string, NodeStatus>();
  readonly #socket: WebSocket;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (message) => {
      let batch: unknown;
      try {
        batch = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (!Array.isArray(batch)) return;
      for (const entry of batch as { topic?: string; data?: unknown }[]) {
        if (entry.topic === 'debug') this.debug.push(entry.data as DebugMessage);
        else if (entry.topic?.startsWith('status/'))
          this.status.set(entry.topic.slice('status/'.length), entry.data as NodeStatus);
      }
    });
  }

  static async open(editorUrl: string): Promise<NodeRedComms> {
    const url = new URL('comms', editorUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(url);
    await new Promise<void>((open, fail) => {
      socket.addEventListener('open', () => open(), { once: true });
      socket.addEventListener('error', () => fail(new Error(`cannot open ${url}`)), { once: true });
    });
    socket.send(JSON.stringify({ subscribe: 'status/#' }));
    socket.send(JSON.stringify({ subscribe: 'debug' }));
    return new NodeRedComms(socket);
  }

  messagesFrom(nodeId: string): DebugMessage[] {
    return this.debug.filter((message) => message.id === nodeId);
  }

  close(): void {
    this.#socket.close();
  }
}

/**
 * Polls `probe` every `intervalMs` until it returns a value other than undefined/false, or fails
 * with `what`.
 */
export async function waitUntil<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, intervalMs));
  }
}
