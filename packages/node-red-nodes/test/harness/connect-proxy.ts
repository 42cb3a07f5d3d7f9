import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface ConnectProxy {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Tunnels opened, per target `host:port`. */
  readonly tunnels: Map<string, number>;
  /** Every request that reached the proxy (CONNECT or not), with its Proxy-Authorization. */
  readonly requests: Array<{ method: string; target: string; authorization: string | undefined }>;
  /** Tunnels opened to this target so far. */
  count(target: string): number;
  close(): Promise<void>;
}

/**
 * A small real HTTP proxy on 127.0.0.1: answers `CONNECT host:port` with a TCP tunnel (what
 * HTTPS, WSS and undici's proxy agent use) and counts what passes, so a test can prove traffic
 * went through it, or did not. With `requireAuth` it asks for Basic credentials (407) first.
 * Plain absolute-form requests (GET http://…) are refused: nothing in the package should send them.
 */
export async function startConnectProxy(options: { requireAuth?: string } = {}): Promise<ConnectProxy> {
  const tunnels = new Map<string, number>();
  const requests: ConnectProxy['requests'] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    requests.push({
      method: req.method ?? '',
      target: req.url ?? '',
      authorization: req.headers['proxy-authorization'],
    });
    res.writeHead(405, { 'content-type': 'text/plain' }).end('this test proxy only tunnels (CONNECT)');
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    const authorization = req.headers['proxy-authorization'];
    requests.push({ method: 'CONNECT', target, authorization });
    sockets.add(client);
    if (
      options.requireAuth &&
      authorization !== `Basic ${Buffer.from(options.requireAuth).toString('base64')}`
    ) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n',
      );
      return;
    }
    const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
    if (!match) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const upstream = connect(Number(match[2]), match[1]);
    sockets.add(upstream);
    upstream.once('connect', () => {
      tunnels.set(target, (tunnels.get(target) ?? 0) + 1);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      client.pipe(upstream).pipe(client);
    });
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const side of [client, upstream]) {
      side.on('error', drop);
      side.on('close', drop);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    requests,
    count: (target) => tunnels.get(target) ?? 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
