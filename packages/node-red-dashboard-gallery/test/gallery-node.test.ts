import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GalleryNode } from '../src/lib/gallery-node.js';
import { DashboardRed, nodeRedPackage } from './harness/dashboard-red.js';
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
    await socketsOpen(sim, 1);
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
    await sim.control.emit(2);
    await until(() => gallery('gallery-1')?.state.cards.length === 2, 'two cards');
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
});
