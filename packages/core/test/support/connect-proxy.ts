import { createServer, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

export type ConnectProxy = Awaited<ReturnType<typeof connectProxy>>;

/**
 * A real HTTP proxy on 127.0.0.1 that only tunnels (CONNECT) and counts the tunnels per target,
 * so a test proves that traffic went through it, or that none did. With `requireAuth`
 * (`user:password`) it answers 407 to a CONNECT without those Basic credentials.
 */
export async function connectProxy(requireAuth?: string) {
  const tunnels: string[] = [];
  const authorizations: Array<string | undefined> = [];
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: IncomingMessage, downstream: Socket, head: Buffer) => {
    const authorization = req.headers['proxy-authorization'];
    authorizations.push(authorization);
    if (requireAuth && authorization !== `Basic ${Buffer.from(requireAuth).toString('base64')}`) {
      downstream.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      tunnels.push(req.url ?? '');
      downstream.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      downstream.pipe(upstream).pipe(downstream);
    });
    for (const side of [downstream, upstream]) {
      sockets.add(side);
      side.on('error', () => undefined);
      side.on('close', () => {
        downstream.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    tunnels,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
