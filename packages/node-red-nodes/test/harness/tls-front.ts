import { connect, type Socket } from 'node:net';
import { createServer, type Server } from 'node:tls';
import type { PrivateCa } from './private-ca.js';

export interface TlsFront {
  /** https://127.0.0.1:PORT in front of the simulator (wss:// on the same port). */
  origin: string;
  /** TLS handshakes that completed (a refused client never gets here). */
  readonly handshakes: number;
  close(): Promise<void>;
}

/**
 * HTTPS/WSS in front of the (plain HTTP) simulator, with a certificate from the private CA: raw
 * TLS termination piped to the simulator's port, so REST, media and the WebSocket upgrade all
 * pass. With `requireClientCert` it only accepts clients showing a certificate from the CA.
 */
export async function startTlsFront(
  targetPort: number,
  ca: PrivateCa,
  options: { requireClientCert?: boolean } = {},
): Promise<TlsFront> {
  const sockets = new Set<Socket>();
  let handshakes = 0;
  const server: Server = createServer(
    {
      key: ca.serverKey,
      cert: ca.serverCert,
      ...(options.requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: ca.ca } : {}),
    },
    (socket) => {
      handshakes += 1;
      const upstream = connect(targetPort, '127.0.0.1');
      sockets.add(socket);
      sockets.add(upstream);
      socket.pipe(upstream).pipe(socket);
      const drop = () => {
        socket.destroy();
        upstream.destroy();
        sockets.delete(socket);
        sockets.delete(upstream);
      };
      for (const side of [socket, upstream]) {
        side.on('error', drop);
        side.on('close', drop);
      }
    },
  );
  // A refused handshake (unknown CA on the client's side, no client certificate) is expected.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    origin: `https://127.0.0.1:${port}`,
    get handshakes() {
      return handshakes;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
