import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GalleryNode } from '../src/lib/gallery-node.js';
import { DashboardRed, type FlowNode, nodeRedPackage, packageRoot } from './harness/dashboard-red.js';
import { dashboardFlow, eventsNode, galleryNode, injectNode } from './harness/flows.js';
import { socketsOpen, until } from './harness/wait.js';

const GALLERY = '@observation-service/node-red-dashboard-2-observation-gallery';
const OBSERVATION = '@observation-service/node-red-observation';
const EXAMPLE = '01 live event gallery on a dashboard.json';

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
    expect(red.errors('gallery-1')[0]).toMatch(
      /^msg\.payload\.eventName must be a string; got nothing \(undefined\)$/,
    );
    // A real event after it still shows: the node kept working.
    await red.connected('events-1');
    await sim.control.emit(1);
    await until(() => gallery('gallery-1')?.state.cards.length === 1, 'one card');
    expect(gallery('gallery-1')?.handled).toBe(2);
  });

  it('a catch-up burst of events older than its cards, some without objects, media or extended fields, shows no error', async () => {
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const newest = {
      eventName: 'person_detected',
      taskId: 1,
      occurredAt: at(1),
      objects: [],
      objectNames: [],
    };
    // Older than the one card kept: shown nowhere. The basic form has no objects, ids or media.
    const older = [
      { eventName: 'fire_detected', taskId: 2, occurredAt: at(30) },
      { eventName: 'car_detected', taskId: 3, timestamp: at(40), objects: null, imageUrl: null },
      {
        eventName: 'person_detected',
        taskId: 1,
        occurredAt: at(50),
        objectNames: ['person'],
        maxConfidence: 0.9,
      },
    ];
    const sentinel = { eventName: 'sentinel', taskId: 4, occurredAt: at(0) };
    const injects = [newest, ...older, sentinel].map((payload, index) =>
      injectNode(`inject-${index}`, payload, ['gallery-1']),
    );
    await red.deploy([
      ...dashboardFlow(sim),
      ...injects,
      galleryNode('gallery-1', { maxCards: 1, server: '' }),
    ]);
    for (const inject of injects) await red.inject(inject.id);
    await until(() => gallery('gallery-1')?.handled === injects.length, 'every message handled');
    expect(gallery('gallery-1')?.state.cards.map((card) => card.eventName)).toEqual(['sentinel']);
    // No objects, no confidence: the card shows none rather than "0%".
    expect(gallery('gallery-1')?.state.cards[0]).not.toHaveProperty('maxConfidence');
    // Dashboard 2 read a dropped event's message and threw "Cannot convert undefined or null to object".
    expect(red.errors('gallery-1')).toEqual([]);
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

  it('the Observation nodes it depends on are in the editor, and its example under Import', async () => {
    const get = async (path: string, accept = 'application/json') => {
      const response = await fetch(`${red.baseUrl}${path}`, { headers: { accept } });
      expect(response.status, path).toBe(200);
      return accept === 'text/html' ? response.text() : response.json();
    };
    // A module named in a package's `node-red.dependencies` would be loaded but kept out of the
    // editor (palette and node definitions) unless installed by the user as well: the gallery
    // depends on the Observation nodes through npm only, so the nodes it needs stay usable.
    const types = ((await get('/nodes')) as Array<{ module: string; types: string[] }>)
      .filter((set) => set.module === OBSERVATION)
      .flatMap((set) => set.types);
    expect(types).toEqual(expect.arrayContaining(['observation-server', 'observation-events']));
    const editorDefinitions = (await get('/nodes', 'text/html')) as string;
    expect(editorDefinitions).toContain('data-template-name="observation-events"');
    expect(editorDefinitions).toContain('data-template-name="ui-observation-gallery"');
    // Import → Examples → the gallery package, read from its examples/ folder.
    const examples = async (module: string) =>
      ((await get(`/library/examples/flows/${module}`)) as Array<{ fn: string }>).map((entry) => entry.fn);
    expect(await examples(GALLERY)).toEqual([EXAMPLE.replace(/\.json$/, '')]);
    // …and no longer under the Observation nodes, which work without Dashboard 2.
    const observation = await examples(OBSERVATION);
    expect(observation.length).toBeGreaterThan(0);
    expect(observation.filter((name) => /gallery|dashboard/i.test(name))).toEqual([]);
  });

  it('its example deploys and fills the gallery', async () => {
    const nodes = JSON.parse(readFileSync(join(packageRoot, 'examples', EXAMPLE), 'utf8')) as FlowNode[];
    // The example's server points at `npx observation-simulator` (port 8080, seed 1) with its demo
    // login; this simulator has another port and seed, so only the address and service id move.
    const flows = nodes.map((node) =>
      node.type === 'observation-server' ? { ...node, url: sim.apiUrl, serviceId: sim.serviceId } : node,
    );
    await red.deploy(flows);
    const galleryId = nodes.find((node) => node.type === 'ui-observation-gallery')?.id as string;
    await red.connected(nodes.find((node) => node.type === 'observation-events')?.id as string);
    await sim.control.emit(4);
    await until(() => (gallery(galleryId)?.state.cards.length ?? 0) >= 4, 'four cards from the example');
    const cards = gallery(galleryId)?.state.cards ?? [];
    expect(cards.every((card) => card.imageUrl && card.clipUrl && card.taskName)).toBe(true);
    expect(red.errors(galleryId)).toEqual([]);
    expect((await fetch(`${red.baseUrl}/dashboard/gallery`)).status).toBe(200);
  });
});
