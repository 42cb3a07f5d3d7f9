import { once } from 'node:events';
import { normalizeEvent } from '@observation-service/core';
import WebSocket from 'ws';
import { type Counter, type LocalTally, localCounter } from './burst.ts';
import { now } from './clock.ts';

/**
 * The baseline client of the realtime figures: what a user writes by hand with `ws`, nothing
 * more: one socket, JSON.parse of every frame. No reconnect, no dedupe, no normalization; with
 * `normalize`, core's `normalizeEvent` of every frame too (P1's floor: parse and normalize, and
 * nothing else core does).
 */
export class RawClient {
  readonly ws: WebSocket;
  readonly tally: LocalTally;
  readonly counter: Counter;
  /** Sum of record ids, so the parse result is used. */
  checksum = 0;

  private constructor(ws: WebSocket, tally: LocalTally, normalize: boolean) {
    this.ws = ws;
    this.tally = tally;
    this.counter = localCounter(tally);
    const count = (id: number) => {
      this.checksum += id;
      tally.received++;
      tally.lastAt = now();
      if (tally.recordTimes) {
        tally.ids.push(id);
        tally.times.push(tally.lastAt);
      }
    };
    // Two handlers rather than a test per frame: each side pays only for what it does.
    ws.on(
      'message',
      normalize
        ? (data: Buffer) => {
            const { event } = normalizeEvent(JSON.parse(data.toString('utf8')));
            count(event?.id ?? -1);
          }
        : (data: Buffer) => {
            const event = JSON.parse(data.toString('utf8')) as { id: number };
            count(event.id);
          },
    );
  }

  /** Counts into `tally` (a new one unless given); `normalize`: the floor client (see above). */
  static async connect(url: string, tally?: LocalTally, normalize = false): Promise<RawClient> {
    const ws = new WebSocket(url);
    await once(ws, 'open');
    return new RawClient(
      ws,
      tally ?? { received: 0, lastAt: 0, recordTimes: false, ids: [], times: [] },
      normalize,
    );
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const closed = once(this.ws, 'close');
    this.ws.close();
    await closed;
  }
}
