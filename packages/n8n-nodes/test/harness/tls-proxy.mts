import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';

export interface TlsProxy {
  /** https://127.0.0.1:PORT, in front of the simulator. */
  siteUrl: string;
  /** The self-signed certificate (public part, PEM), for a client that is told to trust it. */
  certPem: string;
  close(): Promise<void>;
}

/**
 * A TLS front for the (plain HTTP) simulator with a freshly made self-signed certificate, as a
 * deployment on a private network would have. The key is generated per run by Debian's openssl
 * and deleted at once; nothing is stored in the repository.
 */
export async function startSelfSignedProxy(targetPort: number): Promise<TlsProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'obs-tls-'));
  let key: Buffer;
  let cert: Buffer;
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    key = readFileSync(join(dir, 'key.pem'));
    cert = readFileSync(join(dir, 'cert.pem'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const sockets = new Set<{ destroy(): void }>();
  const server: Server = createServer({ key, cert }, (socket) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(socket);
    sockets.add(upstream);
    socket.pipe(upstream).pipe(socket);
    const drop = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', drop);
    upstream.on('error', drop);
    socket.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    siteUrl: `https://127.0.0.1:${port}`,
    certPem: cert.toString('utf8'),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
