import { afterEach, describe, expect, it } from 'vitest';
import { resolveProxy } from '../src/http/proxy.js';
import { checkTls } from '../src/http/tls-options.js';
import type { ObservationEvent } from '../src/index.js';
import { nodeWebSocket } from '../src/node/node-websocket.js';
import { client, optionsFor, simulator, socketOutcome, until } from './helpers.js';
import { type ConnectProxy, connectProxy } from './support/connect-proxy.js';

let proxy: ConnectProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

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
    await until(() => subscription.state === 'open', 'open');
    const [raw] = await sim.control.emit(1);
    await until(() => received.length === 1, 'the event');
    expect(proxy.tunnels.length).toBeGreaterThan(restTunnels);

    const image = await c.media.download(received[0] ?? String(raw?.image_url), 'image');
    expect(image.data.length).toBeGreaterThan(0);
    expect(proxy.tunnels.every((tunnel) => tunnel === target)).toBe(true);
  });

  it('gives URL credentials to the proxy on REST and the socket; a refusal is reported without them', async () => {
    proxy = await connectProxy('alice:s3cret pass');
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const withUser = (password: string) => {
      const url = new URL(proxy?.url ?? '');
      url.username = 'alice';
      url.password = password;
      return url.href;
    };
    const c = client(optionsFor(sim, { proxy: { url: withUser('s3cret pass') } }));
    expect((await c.tasks.list()).length).toBe(sim.world.tasks.length);
    const received: ObservationEvent[] = [];
    const subscription = c.events.subscribe('all', { onEvent: (event) => void received.push(event) });
    await until(() => subscription.state === 'open', 'open');
    await sim.control.emit(1);
    await until(() => received.length === 1, 'the event');
    const expected = `Basic ${Buffer.from('alice:s3cret pass').toString('base64')}`;
    expect(proxy.authorizations.length).toBeGreaterThanOrEqual(2);
    expect(proxy.authorizations.every((authorization) => authorization === expected)).toBe(true);
    await subscription.close();

    // A refusal: REST reports the proxy's 407; the socket (through the client's own ws
    // constructor, where the subscription keeps retrying) fails its upgrade with it.
    const wrong = { url: withUser('wrong-s3cret') };
    const refused = client(optionsFor(sim, { proxy: wrong, retry: { attempts: 1 } }));
    const restError = await refused.tasks.list().catch((error: unknown) => error);
    const RefusedSocket = nodeWebSocket(checkTls(undefined), resolveProxy(wrong));
    const socketError = await socketOutcome(
      RefusedSocket,
      `${sim.apiUrl.replace(/^http/, 'ws')}/events/realtime`,
    );
    for (const error of [restError, socketError]) {
      expect(String(error)).toMatch(/407/);
      expect(String(error)).not.toContain('wrong-s3cret');
    }
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
