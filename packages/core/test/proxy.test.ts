import { createServer, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ObservationEvent } from '../src/index.js';
import { client, optionsFor, simulator } from './helpers.js';

/**
 * A real HTTP proxy on 127.0.0.1 that only tunnels (CONNECT) and counts the tunnels per target,
 * so a test proves that traffic went through it, or that none did.
 */
async function connectProxy() {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: IncomingMessage, downstream: Socket, head: Buffer) => {
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
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let proxy: Awaited<ReturnType<typeof connectProxy>> | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

async function until(check: () => boolean): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > 10_000) throw new Error('timed out');
    await new Promise((wake) => setTimeout(wake, 10));
  }
}

describe('proxy option: REST, media and realtime through a CONNECT proxy', () => {
  it('tunnels REST, media and the WebSocket through { url }', async () => {
    proxy = await connectProxy();
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const target = new URL(sim.apiUrl).host;
    const c = client(optionsFor(sim, { proxy: { url: proxy.url } }));
    expect((await c.tasks.list()).length).toBe(sim.world.tasks.length);
    const restTunnels = proxy.tunnels.length;
    expect(restTunnels).toBeGreaterThan(0);

    const received: ObservationEvent[] = [];
    const subscription = c.events.subscribe('all', { onEvent: (event) => void received.push(event) });
    await until(() => subscription.state === 'open');
    const [raw] = await sim.control.emit(1);
    await until(() => received.length === 1);
    expect(proxy.tunnels.length).toBeGreaterThan(restTunnels);

    const image = await c.media.download(received[0] ?? String(raw?.image_url), 'image');
    expect(image.data.length).toBeGreaterThan(0);
    expect(proxy.tunnels.every((tunnel) => tunnel === target)).toBe(true);
  });

  it('goes directly to hosts in noProxy, and through the environment proxy with proxy: "env"', async () => {
    proxy = await connectProxy();
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const direct = client(optionsFor(sim, { proxy: { url: proxy.url, noProxy: '127.0.0.1' } }));
    expect((await direct.tasks.list()).length).toBe(sim.world.tasks.length);
    expect(proxy.tunnels).toEqual([]);

    const saved = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = proxy.url;
    try {
      const viaEnv = client(optionsFor(sim, { proxy: 'env' }));
      expect((await viaEnv.tasks.list()).length).toBe(sim.world.tasks.length);
      expect(proxy.tunnels.length).toBeGreaterThan(0);
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved;
    }
  });
});
