import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveProxy } from '../src/http/proxy.js';
import { checkTls } from '../src/http/tls-options.js';
import { NetworkError, type ObservationEvent } from '../src/index.js';
import { nodeWebSocket } from '../src/node/node-websocket.js';
import { client, optionsFor, simulator, socketOutcome, until } from './helpers.js';
import { type ConnectProxy, connectProxy } from './support/connect-proxy.js';

// The simulator speaks plain HTTP, so a small TLS terminator with a throwaway self-signed
// certificate (made with openssl at test time, never stored) sits in front of it.
let cert: string;
let key: string;

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'core-tls-'));
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
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    key = readFileSync(join(dir, 'key.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const terminators: Server[] = [];
let proxy: ConnectProxy | undefined;
afterAll(async () => {
  await proxy?.close();
  await Promise.all(terminators.map((server) => new Promise((closed) => server.close(closed))));
});

/** TLS terminated and piped as raw bytes to the simulator: REST and the WebSocket upgrade both pass. */
async function tlsInFrontOf(port: number): Promise<string> {
  const terminator = createServer({ key, cert }, (socket) => {
    const upstream = connect(port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    for (const side of [socket, upstream]) {
      side.on('error', () => undefined);
      side.on('close', () => {
        socket.destroy();
        upstream.destroy();
      });
    }
  });
  // A client that refuses the certificate ends the handshake: expected here.
  terminator.on('tlsClientError', () => undefined);
  terminators.push(terminator);
  await new Promise<void>((resolve) => terminator.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(terminator.address() as AddressInfo).port}`;
}

describe('TLS of the default transport', () => {
  it('verifies certificates by default, accepts a custom CA, and skips verification only when told', async () => {
    const sim = await simulator({ form: 'extended' });
    const url = await tlsInFrontOf(Number(new URL(sim.siteUrl).port));

    const strict = client(optionsFor(sim, { url, retry: { attempts: 1 } }));
    const error = await strict.tasks.list().catch((e: unknown) => e);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/SELF_SIGNED|self-signed|certificate/i);

    const withCa = client(optionsFor(sim, { url, tls: { ca: cert } }));
    expect((await withCa.tasks.list()).length).toBe(sim.world.tasks.length);

    const insecure = client(optionsFor(sim, { url, tls: { rejectUnauthorized: false } }));
    expect((await insecure.locations.list()).length).toBe(sim.world.locations.length);
  });

  it('checks the service certificate through a proxy, also for a service addressed by IP behind a named proxy', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const url = await tlsInFrontOf(Number(new URL(sim.siteUrl).port));
    proxy = await connectProxy();
    // The certificate names IP 127.0.0.1 only: checked against the proxy's name (localhost),
    // it would be refused.
    const viaName = { url: proxy.url.replace('127.0.0.1', 'localhost') };
    const c = client(optionsFor(sim, { url, tls: { ca: cert }, proxy: viaName }));
    expect((await c.tasks.list()).length).toBe(sim.world.tasks.length);
    const received: ObservationEvent[] = [];
    const subscription = c.events.subscribe('all', { onEvent: (event) => void received.push(event) });
    await until(() => subscription.state === 'open', 'open');
    await sim.control.emit(1);
    await until(() => received.length === 1, 'the event');
    await subscription.close();
    const target = new URL(url).host;
    expect(proxy.tunnels.length).toBeGreaterThanOrEqual(2);
    expect(proxy.tunnels.every((tunnel) => tunnel === target)).toBe(true);

    // The tunnel does not bypass verification: without the CA, or checked against another
    // name (tls.servername), the same path is refused, for REST and the socket alike.
    const strict = client(optionsFor(sim, { url, proxy: viaName, retry: { attempts: 1 } }));
    const error = await strict.tasks.list().catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/SELF_SIGNED|self-signed|certificate/i);
    const socketUrl = `${url.replace(/^https/, 'wss')}/apiserver/events/realtime/${sim.serviceId}/0?token=${sim.token}`;
    const routes = resolveProxy(viaName);
    expect(await socketOutcome(nodeWebSocket(checkTls({ ca: cert }), routes), socketUrl)).toBe('open');
    const withoutCa = await socketOutcome(nodeWebSocket(checkTls(undefined), routes), socketUrl);
    expect(String(withoutCa)).toMatch(/self-signed|certificate/i);
    const otherName = nodeWebSocket(checkTls({ ca: cert, servername: 'other.example' }), routes);
    expect(String(await socketOutcome(otherName, socketUrl))).toMatch(/altnames|other\.example/i);
  });
});
