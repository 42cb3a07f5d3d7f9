import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, eventsNode, serverNode, sink, statusNode, tab } from './harness/flows.js';
import { NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

type Msg = Record<string, unknown>;

/**
 * A wrong address (a path that answers 404) on the events node: a red ring with a short reason,
 * and one report to Catch however often core retries (issue: the node stayed yellow, or logged
 * an error on every retry).
 */
describe(`events node, service not reachable (${nodeRedPackage})`, () => {
  let red: NodeRedHarness;
  let wrong: Server;
  let requests = 0;

  beforeAll(async () => {
    red = await NodeRedHarness.start();
    // Not the service: every path answers 404, as a site at the wrong path does.
    wrong = createServer((_request, response) => {
      requests += 1;
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    });
    await new Promise<void>((listening) => wrong.listen(0, '127.0.0.1', listening));
  });
  afterAll(async () => {
    await red?.stop();
    wrong?.closeAllConnections();
    await new Promise<void>((closed) => wrong?.close(() => closed()));
  });

  it('shows a red ring with the reason and reports once to Catch while core retries', async () => {
    const url = `http://127.0.0.1:${(wrong.address() as AddressInfo).port}/apiserver`;
    await red.deploy([
      tab(),
      serverNode(
        { apiUrl: url, serviceId: '', token: 'a-token', credentials: { email: '', password: '' } },
        {
          form: 'basic',
        },
      ),
      sink('status'),
      sink('errors'),
      statusNode('status-node', 'status'),
      catchNode('catch-node', 'errors'),
      eventsNode('events', []),
    ]);
    const statuses = () =>
      red
        .messages('status')
        .map((msg) => (msg as { status: { fill?: string; text?: string; source: { id: string } } }).status)
        .filter((status) => status.source.id === 'events');
    await waitUntil(
      () => statuses().some((status) => status.fill === 'red' && status.text === 'cannot connect: HTTP 404'),
      15_000,
      'a red ring with the reason',
    );
    // Core retries with backoff: three more attempts at the address, and still one report.
    const seen = requests;
    await waitUntil(() => requests >= seen + 3, 20_000, 'three more attempts');
    const errors = red.messages('errors') as Msg[];
    expect(errors).toHaveLength(1);
    const [reported] = errors as [Msg];
    // What the debug sidebar shows first: the reason, as the ring says it.
    expect(String((reported.error as { message?: string }).message)).toMatch(
      /^(Error: )?cannot connect: HTTP 404: GET http:\/\/\S+ failed with HTTP 404/,
    );
    expect((reported.payload as { code?: string }).code).toBe('TASK_LIST_FAILED');
    expect(statuses().at(-1)).toMatchObject({ fill: 'red', shape: 'ring', text: 'cannot connect: HTTP 404' });
  }, 60_000);
});
