import { normalizeEvent, type ObservationEvent } from '@observation-service/core';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, eventsNode, queryNode, serverNode, sink, source, tab } from './harness/flows.js';
import { type FlowNode, NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { changedOverall, changedShare, decodeImage, outline, type Pixels } from './harness/pixels.js';

type Msg = Record<string, unknown>;
type RawEvent = Awaited<ReturnType<Simulator['control']['emit']>>[number];

function errorMessage(msg: Msg | undefined): string {
  return String((msg?.error as { message?: string } | undefined)?.message);
}

function normalized(raw: RawEvent): ObservationEvent {
  const { event } = normalizeEvent(raw);
  if (!event) throw new Error('the simulator sent an event core cannot read');
  return event;
}

/**
 * Every object's box was drawn (its outline pixels changed) and the picture was not repainted
 * as a whole. JPEG output is compared with a tolerance for compression noise.
 */
function expectBoxesDrawn(
  objects: ObservationEvent['objects'],
  before: Pixels,
  after: Pixels,
  tolerance = 0,
) {
  expect([after.width, after.height]).toEqual([before.width, before.height]);
  expect(objects.length).toBeGreaterThan(0);
  for (const object of objects) {
    const edge = outline(object.box, before);
    expect(edge.length, `${object.name} has a visible box`).toBeGreaterThan(0);
    expect(changedShare(before, after, edge, tolerance), `${object.name}'s outline changed`).toBeGreaterThan(
      0.9,
    );
  }
  expect(changedOverall(before, after, tolerance)).toBeLessThan(0.5);
}

describe(`annotated snapshots in Node-RED (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 31, historySize: 10 });
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    red.clear();
    sim.control.reset();
  });

  /** A fresh simulator event with one to three detected objects. */
  async function eventWithObjects(): Promise<RawEvent> {
    for (let round = 0; round < 10; round++) {
      const found = (await sim.control.emit(10)).find(
        (event) => event.detected_objects.length > 0 && event.detected_objects.length <= 3,
      );
      if (found) return found;
    }
    throw new Error('the simulator sent no event with objects');
  }

  /** The snapshot as the service serves it (media URLs take the token as `auth_token`). */
  async function original(url: string): Promise<Buffer> {
    const signed = new URL(url);
    signed.searchParams.set('auth_token', sim.token);
    const response = await fetch(signed);
    expect(response.status).toBe(200);
    return Buffer.from(await response.arrayBuffer());
  }

  async function runQuery(query: Record<string, unknown>, msg: Msg): Promise<void> {
    const nodes: FlowNode[] = [
      tab(),
      serverNode(sim),
      source('in', ['query']),
      queryNode('query', ['out'], { operation: 'annotatedSnapshot', ...query }),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
    ];
    await red.deploy(nodes);
    red.inject('in', msg);
  }

  it('query: draws the boxes of the event in msg.payload on its snapshot', async () => {
    const raw = await eventWithObjects();
    const event = normalized(raw);
    await runQuery({}, { payload: raw, keep: 'me' });
    const [msg] = await red.waitFor('out', (list) => list.length === 1);
    expect(Buffer.isBuffer(msg?.payload)).toBe(true);
    expect(msg).toMatchObject({
      contentType: 'image/png',
      filename: expect.stringMatching(/-annotated\.png$/),
      annotation: { width: 640, height: 360, drawn: event.objects.length },
      keep: 'me',
    });
    const before = decodeImage(await original(raw.image_url));
    expectBoxesDrawn(event.objects, before, decodeImage(msg?.payload as Buffer));
  });

  it('query: draws the objects of msg.objects on the snapshot at msg.url, as JPEG when asked', async () => {
    const raw = await eventWithObjects();
    const objects = [
      {
        objectId: 'gate-1',
        name: 'gate',
        box: { cx: 0.5, cy: 0.5, w: 0.4, h: 0.5 },
        confidence: 0.9,
        warning: true,
      },
    ];
    // Media left empty: the URL comes from msg.url.
    await runQuery({ source: '' }, { url: raw.image_url, objects, format: 'jpeg' });
    const [msg] = await red.waitFor('out', (list) => list.length === 1);
    expect(msg).toMatchObject({ contentType: 'image/jpeg', annotation: { drawn: 1 } });
    const before = decodeImage(await original(raw.image_url));
    // JPEG is lossy: a drawn outline differs by far more than compression noise.
    expectBoxesDrawn(objects, before, decodeImage(msg?.payload as Buffer), 40);
  });

  it('query: objects can be set in the editor as JSON', async () => {
    const raw = await eventWithObjects();
    const objects = [
      {
        objectId: 'a',
        name: 'person',
        box: { cx: 0.3, cy: 0.4, w: 0.2, h: 0.3 },
        confidence: 0.7,
        warning: false,
      },
    ];
    await runQuery(
      {
        source: 'url',
        sourceType: 'msg',
        objects: JSON.stringify(objects),
        objectsType: 'json',
        format: 'png',
      },
      { url: raw.image_url },
    );
    const [msg] = await red.waitFor('out', (list) => list.length === 1);
    expect(msg?.annotation).toMatchObject({ drawn: 1 });
    expectBoxesDrawn(
      objects,
      decodeImage(await original(raw.image_url)),
      decodeImage(msg?.payload as Buffer),
    );
  });

  it('query: a URL without objects, or a bad format, goes to Catch naming the parameter', async () => {
    const raw = await eventWithObjects();
    await runQuery({ source: '' }, { url: raw.image_url });
    const [caught] = await red.waitFor('errors', (list) => list.length > 0);
    // Named by the query node's field labels (Objects, Format), as the editor shows them.
    expect(errorMessage(caught)).toContain('Invalid Objects');
    expect(red.messages('out')).toEqual([]);
    red.clear();

    await runQuery({}, { payload: raw, format: 'gif' });
    const [bad] = await red.waitFor('errors', (list) => list.length > 0);
    expect(errorMessage(bad)).toContain('Invalid Format');
    expect(errorMessage(bad)).toContain('gif');
  });

  it('events node: attaches the annotated snapshot beside the snapshot (one download)', async () => {
    await red.deploy([
      tab(),
      serverNode(sim),
      eventsNode('events', ['out'], { attachSnapshot: true, attachAnnotated: true }),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
    ]);
    await new Promise((wake) => setTimeout(wake, 300));
    // Media requests only: the node also reads history (what was published while it connected).
    const requestsBefore = sim.control.stats().mediaRequests;
    const emitted = await sim.control.emit(10);
    const messages = await red.waitFor('out', (list) => list.length === emitted.length);
    // One image request per event: the annotated image is drawn on the downloaded snapshot.
    expect(sim.control.stats().mediaRequests - requestsBefore).toBe(emitted.length);
    expect(red.messages('errors')).toEqual([]);

    const raw = emitted.find((event) => event.detected_objects.length > 0);
    if (!raw) throw new Error('the simulator sent no event with objects');
    const msg = messages.find((candidate) => (candidate.payload as { id: number }).id === raw.id);
    expect(msg?.annotatedContentType).toBe(msg?.snapshotContentType);
    const event = normalized(raw);
    expectBoxesDrawn(
      event.objects,
      decodeImage(msg?.snapshot as Buffer),
      decodeImage(msg?.annotated as Buffer),
    );
  });

  it('events node: attaches only the annotated snapshot when only that is asked for', async () => {
    await red.deploy([
      tab(),
      serverNode(sim),
      eventsNode('events', ['out'], { attachAnnotated: true }),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
    ]);
    await new Promise((wake) => setTimeout(wake, 300));
    const raw = await eventWithObjects();
    const messages = await red.waitFor('out', (list) =>
      list.some((msg) => (msg.payload as { id: number }).id === raw.id),
    );
    const msg = messages.find((candidate) => (candidate.payload as { id: number }).id === raw.id);
    expect(msg?.snapshot).toBeUndefined();
    expect(msg?.annotatedContentType).toBe('image/png');
    const event = normalized(raw);
    expectBoxesDrawn(
      event.objects,
      decodeImage(await original(raw.image_url)),
      decodeImage(msg?.annotated as Buffer),
    );
    expect(red.messages('errors')).toEqual([]);
  });
});
