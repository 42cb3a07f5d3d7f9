import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { recorder, waitFor } from './__tests__/recorder.js';
import { simulatorContext } from './__tests__/simulator-context.js';
import { createSubscription } from './subscription-handle.js';

// A server that writes the upgrade answer and the first events in ONE TCP write, so the client
// reads them together. The simulator (like most servers) writes them separately and only
// sometimes coalesces them under load; this corner needs a byte-level server to be certain.
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  if (payload.length >= 65_536) throw new Error('test frames stay small');
  const header =
    payload.length < 126
      ? Buffer.from([0x81, payload.length])
      : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, payload]);
}

function eagerServer(events: unknown[]): Promise<Server> {
  const server = createServer((socket) => {
    socket.once('data', (request) => {
      // History (every start first reads what was published while its socket opened): nothing.
      if (/^GET \/apiserver\/events\/history/.test(request.toString())) {
        socket.end(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]',
        );
        return;
      }
      const key = /sec-websocket-key:\s*(\S+)/i.exec(request.toString())?.[1] ?? '';
      const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      const answer = `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`;
      socket.write(
        Buffer.concat([Buffer.from(answer), ...events.map((event) => textFrame(JSON.stringify(event)))]),
      );
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function extendedEvent(id: number) {
  return {
    id,
    task_id: 1,
    event_id: 2001,
    event_name: 'person_in_zone',
    event_description: 'Person in zone',
    timestamp: '2026-11-21T10:00:00Z',
    image_url: `http://127.0.0.1/media/snapshots/${id}.png`,
    video_url: `http://127.0.0.1/media/clips/${id}.mp4`,
    detected_objects: [],
    location_id: 1,
    camera_id: 1,
    timezone: 'Europe/Paris',
  };
}

describe('frames that arrive with the upgrade answer', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it('are delivered, not dropped, when there is nothing to catch up', async () => {
    const sent = Array.from({ length: 20 }, (_, index) => extendedEvent(index + 1));
    server = await eagerServer(sent);
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    const context = simulatorContext({
      apiUrl: `http://127.0.0.1:${address.port}/apiserver`,
      wsUrl: `ws://127.0.0.1:${address.port}/apiserver`,
      token: 'token',
      serviceId: 'svc',
    });
    const rec = recorder();
    const sub = createSubscription(context, [1], rec.handlers, { heartbeatMs: 60_000 });
    await waitFor(() => rec.events.length === sent.length, 'all 20 early events');
    expect(rec.events.map((event) => event.id)).toEqual(sent.map((event) => event.id));
    await sub.close();
  });
});
