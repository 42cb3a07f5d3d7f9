/** Refuses a WebSocket upgrade with a real HTTP status and JSON body, as an HTTP server in front of the socket would. */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

export function refuseUpgrade(
  socket: Duplex,
  status: number,
  detail: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ detail });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  if (socket.writable) socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
  else socket.destroy();
}
