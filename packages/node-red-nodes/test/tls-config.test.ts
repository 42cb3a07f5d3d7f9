import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
import { waitUntil } from './harness/wait.js';

type Msg = Record<string, unknown>;

/** Node-RED's own tls-config node, as its editor saves it with uploaded certificates. */
function tlsConfigNode(id: string, credentials: Record<string, string>, verifyservercert = true): FlowNode {
  return {
    id,
    type: 'tls-config',
    // Not the id: Node-RED takes any property equal to a config node's id for a reference.
    name: `TLS ${id.slice(4)}`,
    cert: '',
    key: '',
    ca: '',
    certname: credentials.certdata ? 'client.pem' : '',
    keyname: credentials.keydata ? 'client.key' : '',
    caname: credentials.cadata ? 'ca.pem' : '',
    servername: '',
    verifyservercert,
    alpnprotocol: '',
    credentials,
  };
}

const errorText = (msg: Msg | undefined) => String((msg?.error as { message?: string } | undefined)?.message);

describe(`TLS through a tls-config node: HTTPS/WSS with a private CA (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;
  let ca: PrivateCa;
  let front: TlsFront;
  let mutualFront: TlsFront;

  beforeAll(async () => {
    ca = makePrivateCa();
    sim = await startSimulator({ seed: 5, historySize: 20 });
    const port = Number(new URL(sim.apiUrl).port);
    front = await startTlsFront(port, ca);
    mutualFront = await startTlsFront(port, ca, { requireClientCert: true });
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
    await front?.close();
    await mutualFront?.close();
    await sim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    red.clear();
    sim.control.reset();
  });

  /** The server node pointed at a TLS front (the simulator's API path on the https origin). */
  function secureServer(origin: string, tls?: string): FlowNode {
    return serverNode(sim, { url: `${origin}/apiserver`, ...(tls ? { tls } : {}) });
  }

  async function query(
    server: FlowNode,
    extra: FlowNode[],
    operation: Record<string, unknown>,
    msg: Msg = {},
  ) {
    await red.deploy([
      tab(),
      server,
      ...extra,
      source('in', ['query']),
      queryNode('query', ['out'], operation),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
    ]);
    red.inject('in', msg);
    // The query answers on its output or fails to Catch; either ends the wait (each test then
    // says which it expects).
    await waitUntil(
      () => red.messages('out').length > 0 || red.messages('errors').length > 0,
      10_000,
      'the query to answer or fail',
    );
  }

  it('refuses the private CA without a tls-config node (REST)', async () => {
    await red.deploy([
      tab(),
      secureServer(front.origin),
      source('in', ['query']),
      queryNode('query', ['out'], { operation: 'tasks' }),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
    ]);
    red.inject('in', {});
    const [caught] = await red.waitFor('errors', (list) => list.length > 0, 15_000);
    expect(errorText(caught)).toMatch(/certificate|self[- ]signed|issuer/i);
    expect(red.messages('out')).toEqual([]);
  });

  it('reads tasks and downloads a snapshot over HTTPS with the CA from a tls-config node', async () => {
    const tls = tlsConfigNode('tls-ca', { cadata: ca.ca });
    await query(secureServer(front.origin, 'tls-ca'), [tls], { operation: 'tasks' });
    expect(red.messages('errors')).toEqual([]);
    expect((red.messages('out')[0]?.payload as unknown[] | undefined)?.length).toBe(sim.world.tasks.length);
    red.clear();

    // Media: the snapshot URL on the HTTPS origin (the service's own, so the token may go there).
    const [event] = await sim.control.emit(1);
    const url = new URL(String(event?.image_url));
    const snapshotUrl = `${front.origin}${url.pathname}`;
    const before = front.handshakes;
    await query(
      secureServer(front.origin, 'tls-ca'),
      [tls],
      { operation: 'snapshot', source: 'url' },
      { url: snapshotUrl },
    );
    expect(red.messages('errors')).toEqual([]);
    const [snapshot] = red.messages('out');
    expect(Buffer.isBuffer(snapshot?.payload)).toBe(true);
    expect((snapshot?.payload as Buffer | undefined)?.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(front.handshakes).toBeGreaterThan(before);
  });

  it('receives live events over WSS with the tls-config node, and not without it', async () => {
    const tls = tlsConfigNode('tls-ca', { cadata: ca.ca });
    await red.deploy([
      tab(),
      secureServer(front.origin, 'tls-ca'),
      { ...secureServer(front.origin), id: 'server-plain', name: 'no tls config' },
      tls,
      eventsNode('events', ['out'], { lookBackMinutes: 0 }),
      eventsNode('events-plain', ['out-2'], { server: 'server-plain', lookBackMinutes: 0 }),
      sink('out'),
      sink('out-2'),
      sink('status'),
      sink('errors'),
      statusNode('status-node', 'status'),
      catchNode('catch-node', 'errors'),
    ]);
    const statusOf = (id: string) =>
      red
        .messages('status')
        .map((msg) => msg.status as { fill?: string; text?: string; source: { id: string } })
        .filter((status) => status.source.id === id);
    await red.waitFor('status', () => statusOf('events').some((status) => status.fill === 'green'), 15_000);
    const emitted = await sim.control.emit(2);
    const messages = await red.waitFor('out', (list) => list.length === 2, 15_000);
    expect(messages.map((msg) => (msg.payload as { id: number }).id)).toEqual(
      emitted.map((event) => event.id),
    );
    expect(messages.every((msg) => msg.source === 'live')).toBe(true);

    // The node without TLS settings never connects: the same live events that reached the node
    // with the tls-config node (the sentinel above) did not reach it, and it never turned green.
    expect(statusOf('events-plain').length).toBeGreaterThan(0);
    expect(statusOf('events-plain').some((status) => status.fill === 'green')).toBe(false);
    expect(red.messages('out-2')).toEqual([]);
  });

  it('connects without the CA when the tls-config node turns verification off', async () => {
    const tls = tlsConfigNode('tls-noverify', {}, false);
    await query(secureServer(front.origin, 'tls-noverify'), [tls], { operation: 'tasks' });
    expect(red.messages('errors')).toEqual([]);
    expect((red.messages('out')[0]?.payload as unknown[] | undefined)?.length).toBe(sim.world.tasks.length);
  });

  it('shows the client certificate of the tls-config node to a service that requires one', async () => {
    const withoutClientCert = tlsConfigNode('tls-ca', { cadata: ca.ca });
    await query(secureServer(mutualFront.origin, 'tls-ca'), [withoutClientCert], { operation: 'tasks' });
    const [caught] = await red.waitFor('errors', (list) => list.length > 0, 15_000);
    expect(errorText(caught)).not.toBe('undefined');
    expect(red.messages('out')).toEqual([]);
    red.clear();

    const mutual = tlsConfigNode('tls-mutual', {
      cadata: ca.ca,
      certdata: ca.clientCert,
      keydata: ca.clientKey,
    });
    await query(secureServer(mutualFront.origin, 'tls-mutual'), [mutual], { operation: 'tasks' });
    expect(red.messages('errors')).toEqual([]);
    expect((red.messages('out')[0]?.payload as unknown[] | undefined)?.length).toBe(sim.world.tasks.length);
    // Secrets stay out of what a user sees: the key is not in any message or error.
    expect(JSON.stringify(red.messages('out'))).not.toContain('PRIVATE KEY');
  });

  it('reports a TLS setting whose tls-config node is missing instead of connecting without it', async () => {
    await red.deploy([
      tab(),
      secureServer(front.origin, 'tls-gone'),
      source('in', ['query']),
      queryNode('query', ['out'], { operation: 'tasks' }),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
    ]);
    const before = front.handshakes;
    red.inject('in', {});
    const [caught] = await red.waitFor('errors', (list) => list.length > 0, 15_000);
    expect(errorText(caught)).toMatch(/TLS: the tls-config node tls-gone is not deployed/);
    expect(red.messages('out')).toEqual([]);
    expect(front.handshakes).toBe(before);
  });
});
