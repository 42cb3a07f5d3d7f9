import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectProxy, startConnectProxy } from './harness/connect-proxy.js';
import {
  catchNode,
  eventsNode,
  queryNode,
  serverNode,
  sink,
  source,
  statusNode,
  tab,
} from './harness/flows.js';
import { type FlowNode, NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { makePrivateCa, type PrivateCa } from './harness/private-ca.js';
import { startTlsFront, type TlsFront } from './harness/tls-front.js';

/** Node-RED's own `http proxy` config node, as its editor saves it. */
function httpProxyNode(url: string, noproxy: string[] = [], credentials?: Record<string, string>): FlowNode {
  return {
    id: 'proxy-1',
    type: 'http proxy',
    name: 'corporate proxy',
    url,
    noproxy,
    ...(credentials ? { credentials } : {}),
  };
}

const PROXY_ENV = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
];

describe(`proxy: http proxy config node and HTTP(S)_PROXY / NO_PROXY (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;
  let proxy: ConnectProxy;
  let ca: PrivateCa;
  let front: TlsFront;
  let simTarget: string;
  const savedEnv = new Map<string, string | undefined>();

  beforeAll(async () => {
    for (const name of PROXY_ENV) savedEnv.set(name, process.env[name]);
    for (const name of PROXY_ENV) delete process.env[name];
    ca = makePrivateCa();
    sim = await startSimulator({ seed: 8, historySize: 20 });
    simTarget = `127.0.0.1:${new URL(sim.apiUrl).port}`;
    front = await startTlsFront(Number(new URL(sim.apiUrl).port), ca);
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    for (const [name, value] of savedEnv) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await red?.stop();
    await front?.close();
    await sim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    await proxy?.close();
    for (const name of PROXY_ENV) delete process.env[name];
    red.clear();
    sim.control.reset();
  });

  const statusOf = (id: string) =>
    red
      .messages('status')
      .map((msg) => msg.status as { fill?: string; text?: string; source: { id: string } })
      .filter((status) => status.source.id === id);

  /** Deploys query + events nodes on `server`, reads the tasks, a snapshot and two live events. */
  async function useEverything(
    server: FlowNode,
    extra: FlowNode[] = [],
    origin = sim.apiUrl.replace(/\/apiserver$/, ''),
  ) {
    await red.deploy([
      tab(),
      server,
      ...extra,
      source('in', ['query']),
      queryNode('query', ['out'], { operation: 'tasks' }),
      source('in-media', ['media']),
      queryNode('media', ['out-media'], { operation: 'snapshot', source: 'url', sourceType: 'msg' }),
      eventsNode('events', ['out-events'], { lookBackMinutes: 0 }),
      sink('out'),
      sink('out-media'),
      sink('out-events'),
      sink('status'),
      sink('errors'),
      statusNode('status-node', 'status'),
      catchNode('catch-node', 'errors'),
    ]);
    red.inject('in', {});
    const [tasks] = await red.waitFor('out', (list) => list.length > 0, 15_000);
    expect((tasks?.payload as unknown[] | undefined)?.length).toBe(sim.world.tasks.length);

    await red.waitFor('status', () => statusOf('events').some((status) => status.fill === 'green'), 15_000);
    const emitted = await sim.control.emit(2);
    const events = await red.waitFor('out-events', (list) => list.length === 2, 15_000);
    expect(events.map((msg) => (msg.payload as { id: number }).id)).toEqual(emitted.map((event) => event.id));

    const path = new URL(String(emitted[0]?.image_url)).pathname;
    red.inject('in-media', { url: `${origin}${path}` });
    const [snapshot] = await red.waitFor('out-media', (list) => list.length > 0, 15_000);
    expect((snapshot?.payload as Buffer | undefined)?.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(red.messages('errors')).toEqual([]);
  }

  it('sends REST, media and the realtime socket through the http proxy node', async () => {
    proxy = await startConnectProxy();
    await useEverything(serverNode(sim, { proxy: 'proxy-1' }), [httpProxyNode(proxy.url)]);
    // REST/media (undici's pool) and the WebSocket each opened at least one tunnel to the simulator.
    expect(proxy.count(simTarget)).toBeGreaterThanOrEqual(2);
    expect(
      proxy.requests.every((request) => request.method === 'CONNECT' && request.target === simTarget),
    ).toBe(true);
  });

  it('gives the proxy node credentials to a proxy that asks for them, and never shows them', async () => {
    proxy = await startConnectProxy({ requireAuth: 'alice:s3cret pass' });
    await useEverything(serverNode(sim, { proxy: 'proxy-1' }), [
      httpProxyNode(proxy.url, [], { username: 'alice', password: 's3cret pass' }),
    ]);
    expect(proxy.count(simTarget)).toBeGreaterThanOrEqual(2);
    const expected = `Basic ${Buffer.from('alice:s3cret pass').toString('base64')}`;
    expect(proxy.requests.every((request) => request.authorization === expected)).toBe(true);
    expect(JSON.stringify([...red.messages('out'), ...red.messages('status')])).not.toContain('s3cret');
  });

  it('reports a proxy that refuses the credentials, without showing the password', async () => {
    proxy = await startConnectProxy({ requireAuth: 'alice:right' });
    await red.deploy([
      tab(),
      serverNode(sim, { proxy: 'proxy-1' }),
      httpProxyNode(proxy.url, [], { username: 'alice', password: 'wrong-s3cret' }),
      source('in', ['query']),
      queryNode('query', ['out'], { operation: 'tasks' }),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
    ]);
    red.inject('in', {});
    const [caught] = await red.waitFor('errors', (list) => list.length > 0, 30_000);
    expect(String((caught?.error as { message?: string })?.message)).toMatch(/407|proxy/i);
    expect(JSON.stringify(caught)).not.toContain('wrong-s3cret');
    expect(proxy.count(simTarget)).toBe(0);
    expect(red.messages('out')).toEqual([]);
  });

  it('reaches hosts in the proxy node’s no-proxy list directly', async () => {
    proxy = await startConnectProxy();
    await useEverything(serverNode(sim, { proxy: 'proxy-1' }), [httpProxyNode(proxy.url, ['127.0.0.1'])]);
    // Everything above worked (the sentinel), and the proxy saw no request at all.
    expect(proxy.requests).toEqual([]);
  });

  it('tunnels HTTPS and WSS with a private CA through the proxy (TLS end to end)', async () => {
    proxy = await startConnectProxy();
    const tls: FlowNode = {
      id: 'tls-ca',
      type: 'tls-config',
      name: 'private CA',
      cert: '',
      key: '',
      ca: '',
      servername: '',
      verifyservercert: true,
      credentials: { cadata: ca.ca },
    };
    const frontTarget = new URL(front.origin).host;
    await useEverything(
      serverNode(sim, { url: `${front.origin}/apiserver`, tls: 'tls-ca', proxy: 'proxy-1' }),
      // The proxy by name (localhost), the service by IP: the certificate (IP 127.0.0.1 only) must
      // be checked against the service's host, not the proxy's.
      [tls, httpProxyNode(proxy.url.replace('127.0.0.1', 'localhost'))],
      front.origin,
    );
    expect(proxy.count(frontTarget)).toBeGreaterThanOrEqual(2);
    expect(proxy.count(simTarget)).toBe(0);
  });

  it('uses HTTP_PROXY from the environment without a proxy node', async () => {
    proxy = await startConnectProxy();
    process.env.HTTP_PROXY = proxy.url;
    await useEverything(serverNode(sim));
    expect(proxy.count(simTarget)).toBeGreaterThanOrEqual(2);
  });

  it('honours NO_PROXY from the environment', async () => {
    proxy = await startConnectProxy();
    process.env.http_proxy = proxy.url;
    process.env.no_proxy = 'localhost,127.0.0.1';
    await useEverything(serverNode(sim));
    expect(proxy.requests).toEqual([]);
  });

  it('reports an unreachable proxy instead of connecting directly', async () => {
    proxy = await startConnectProxy();
    const gone = proxy.url;
    await proxy.close();
    await red.deploy([
      tab(),
      serverNode(sim, { proxy: 'proxy-1' }),
      httpProxyNode(gone),
      source('in', ['query']),
      queryNode('query', ['out'], { operation: 'tasks' }),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
    ]);
    red.inject('in', {});
    const [caught] = await red.waitFor('errors', (list) => list.length > 0, 30_000);
    expect(String((caught?.error as { message?: string })?.message)).toMatch(/ECONNREFUSED|proxy|connect/i);
    expect(red.messages('out')).toEqual([]);
  });
});
