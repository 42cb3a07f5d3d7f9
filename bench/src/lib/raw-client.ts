import { once } from 'node:events';
import WebSocket from 'ws';
import { type Counter, type LocalTally, localCounter } from './burst.ts';
import { now } from './clock.ts';

/**
 * The baseline client of the realtime figures: what a user writes by hand with `ws`, nothing
 * more: one socket, JSON.parse of every frame. No reconnect, no dedupe, no normalization.
 */
export class RawClient {
  readonly ws: WebSocket;
  readonly tally: LocalTally;
  readonly counter: Counter;
  /** Sum of record ids, so the parse result is used. */
  checksum = 0;

  private constructor(ws: WebSocket, tally: LocalTally) {
    this.ws = ws;
    this.tally = tally;
    this.counter = localCounter(tally);
    ws.on('message', (data: Buffer) => {
      const event = JSON.parse(data.toString('utf8')) as { id: number };
      this.checksum += event.id;
      tally.received++;
      tally.lastAt = now();
      if (tally.recordTimes) {
        tally.ids.push(event.id);
        tally.times.push(tally.lastAt);
      }
    });
  }

  /** Counts into `tally` (a new one unless given). */
  static async connect(url: string, tally?: LocalTally): Promise<RawClient> {
    const ws = new WebSocket(url);
    await once(ws, 'open');
    return new RawClient(ws, tally ?? { received: 0, lastAt: 0, recordTimes: false, ids: [], times: [] });
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const closed = once(this.ws, 'close');
    this.ws.close();
    await closed;
  }
}
