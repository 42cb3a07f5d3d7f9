import { once } from 'node:events';
import WebSocket from 'ws';
import { now } from './clock.ts';

/**
 * The baseline client of the realtime figures: what a user writes by hand with `ws`, nothing
 * more: one socket, JSON.parse of every frame. No reconnect, no dedupe, no normalization.
 */
export class RawClient {
  received = 0;
  lastAt = 0;
  /** Sum of record ids, so the parse result is used. */
  checksum = 0;
  /** Receive time (clock.now()) by record id, when `recordTimes` is on. */
  readonly times = new Map<number, number>();
  recordTimes = false;

  readonly ws: WebSocket;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data: Buffer) => {
      const event = JSON.parse(data.toString('utf8')) as { id: number };
      this.checksum += event.id;
      this.received++;
      this.lastAt = now();
      if (this.recordTimes) this.times.set(event.id, this.lastAt);
    });
  }

  static async connect(url: string): Promise<RawClient> {
    const ws = new WebSocket(url);
    await once(ws, 'open');
    return new RawClient(ws);
  }

  reset(): void {
    this.received = 0;
    this.checksum = 0;
    this.times.clear();
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const closed = once(this.ws, 'close');
    this.ws.close();
    await closed;
  }
}
