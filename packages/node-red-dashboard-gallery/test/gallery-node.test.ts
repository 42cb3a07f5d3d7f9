import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GalleryNode } from '../src/lib/gallery-node.js';
import { DashboardRed, type FlowNode, nodeRedPackage } from './harness/dashboard-red.js';
import { dashboardFlow, eventsNode, galleryNode, injectNode } from './harness/flows.js';
import { socketsOpen, until } from './harness/wait.js';

describe(`gallery node in Node-RED (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: DashboardRed;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 11, historySize: 10 });
    red = await DashboardRed.start();
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    await socketsOpen(sim, 0);
    red.logs.length = 0;
    sim.control.reset();
  });

  const gallery = (id: string) => red.node<{ gallery?: GalleryNode }>(id)?.gallery;

  it('reports a bad setting naming the field, the value and what is allowed', async () => {
    await red.deploy([...dashboardFlow(sim), galleryNode('gallery-bad', { maxCards: 500 })]);
    await until(() => red.errors('gallery-bad').length > 0, 'an error of gallery-bad');
    expect(red.errors('gallery-bad')).toEqual(['maxCards must be a whole number from 1 to 200; got 500']);
    expect(gallery('gallery-bad')).toBeUndefined();
  });

  it('reports a message that is not an event, and shows nothing for it', async () => {
    await red.deploy([
      ...dashboardFlow(sim),
      injectNode('inject-1', { hello: 'world' }, ['gallery-1']),
      eventsNode('events-1', ['gallery-1']),
      galleryNode('gallery-1'),
    ]);
    await red.inject('inject-1');
    await until(() => red.errors('gallery-1').length > 0, 'an error of gallery-1');
    expect(red.errors('gallery-1')[0]).toMatch(/^msg\.payload\.eventName must be a string; got nothing$/);
    // A real event after it still shows: the node kept working.
    await red.connected('events-1');
    await sim.control.emit(1);
    await until(() => gallery('gallery-1')?.state.cards.length === 1, 'one card');
    expect(gallery('gallery-1')?.handled).toBe(2);
  });

  it('serves images only for cards it holds, and nothing once the node is gone', async () => {
    await red.deploy([
      ...dashboardFlow(sim),
      eventsNode('events-1', ['gallery-1']),
      galleryNode('gallery-1'),
    ]);
    await red.connected('events-1');
    await sim.control.emit(2);
    await until(() => gallery('gallery-1')?.state.cards.length === 2, 'two cards');
    await until(() => red.statuses.get('gallery-1')?.text === '2 of 12 cards', 'the card count on the node');
    const url = gallery('gallery-1')?.state.cards[0]?.imageUrl as string;
    const ok = await fetch(new URL(url, red.baseUrl));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await ok.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const unknown = await fetch(new URL(url.replace(/[^/]+$/, 'not-a-card'), red.baseUrl));
    expect(unknown.status).toBe(404);
    await red.deploy([]);
    expect((await fetch(new URL(url, red.baseUrl))).status).toBe(404);
  });

  it("the Node-RED package's gallery example deploys and fills the gallery", async () => {
    const examplesDir = join(
      dirname(
        createRequire(import.meta.url).resolve('@observation-service/node-red-observation/package.json'),
      ),
      'examples',
    );
    const file = readdirSync(examplesDir).find((name) => /gallery/.test(name));
    expect(file).toBeDefined();
    const nodes = JSON.parse(readFileSync(join(examplesDir, file as string), 'utf8')) as FlowNode[];
    // Pointed at the simulator, as a user sets the config node in the editor.
    const flows = nodes.map((node) =>
      node.type === 'observation-server'
        ? { ...node, url: sim.apiUrl, serviceId: sim.serviceId, credentials: { token: sim.token } }
        : node,
    );
    await red.deploy(flows);
    const galleryId = nodes.find((node) => node.type === 'ui-observation-gallery')?.id as string;
    await red.connected(nodes.find((node) => node.type === 'observation-events')?.id as string);
    await sim.control.emit(4);
    await until(() => (gallery(galleryId)?.state.cards.length ?? 0) >= 4, 'four cards from the example');
    const cards = gallery(galleryId)?.state.cards ?? [];
    expect(cards.every((card) => card.imageUrl && card.clipUrl && card.taskName)).toBe(true);
    expect(red.errors(galleryId)).toEqual([]);
    expect((await fetch(`${red.baseUrl}/dashboard/events`)).status).toBe(200);
  });
});
