import { extendedPayload } from '@observation-service/simulator';
import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import {
  annotateSnapshot,
  HttpError,
  MediaMissingError,
  type ObservationClient,
  type ObservationEvent,
  ValidationError,
} from '../src/index.js';
import { client, optionsFor, simulator } from './helpers.js';

interface Pixels {
  width: number;
  height: number;
  data: Uint8Array;
}

const decodePng = (bytes: Buffer): Pixels => PNG.sync.read(bytes);
const decodeJpeg = (bytes: Buffer): Pixels => jpeg.decode(bytes, { useTArray: true });

function rgb(image: Pixels, x: number, y: number): [number, number, number] {
  const o = (y * image.width + x) * 4;
  return [image.data[o] ?? -1, image.data[o + 1] ?? -1, image.data[o + 2] ?? -1];
}

/** Largest channel difference between two pixels. */
const distance = (a: number[], b: number[]): number =>
  Math.max(...a.map((v, i) => Math.abs(v - (b[i] ?? 0))));

/** The box in pixels, unclipped, rounded like the simulator draws it. */
function rect(event: ObservationEvent, index: number, width = 640, height = 360) {
  const box = event.objects[index]?.box;
  if (!box) throw new Error('no such object');
  return {
    x0: Math.round((box.cx - box.w / 2) * width),
    x1: Math.round((box.cx + box.w / 2) * width),
    y0: Math.round((box.cy - box.h / 2) * height),
    y1: Math.round((box.cy + box.h / 2) * height),
  };
}

/** Pixels on the box sides that lie inside the image (the outline is drawn there). */
function edgePixels(event: ObservationEvent, index: number, image: Pixels): Array<[number, number]> {
  const { x0, x1, y0, y1 } = rect(event, index, image.width, image.height);
  const out: Array<[number, number]> = [];
  const [left, right] = [Math.max(0, x0), Math.min(image.width, x1)];
  const [top, bottom] = [Math.max(0, y0), Math.min(image.height, y1)];
  if (left >= right || top >= bottom) return out;
  for (let y = top; y < bottom; y++) {
    if (x0 >= 0) out.push([x0, y]);
    if (x1 <= image.width) out.push([x1 - 1, y]);
  }
  for (let x = left; x < right; x++) {
    if (y0 >= 0) out.push([x, y0]);
    if (y1 <= image.height) out.push([x, y1 - 1]);
  }
  return out;
}

/** True when (x, y) is well away from every box and from where its label can be. */
function far(event: ObservationEvent, x: number, y: number, image: Pixels): boolean {
  return event.objects.every((_, i) => {
    const r = rect(event, i, image.width, image.height);
    // Labels sit above the top edge (or just inside it) and are at most ~130 px wide.
    return x < r.x0 - 140 || x >= r.x1 + 140 || y < r.y0 - 16 || y >= r.y1 + 16;
  });
}

async function eventsWithObjects(c: ObservationClient, count: number): Promise<ObservationEvent[]> {
  const events = await c.events.history({ limit: 100 });
  const chosen = events.filter((e) => e.objects.length > 0 && e.objects.length <= 3).slice(0, count);
  if (chosen.length < count) throw new Error('the seeded history has too few events with objects');
  return chosen;
}

/** Every box edge changed, and nothing far from the boxes did; returns how many far pixels were compared. */
function expectAnnotated(event: ObservationEvent, before: Pixels, after: Pixels, tolerance: number): number {
  expect([after.width, after.height]).toEqual([before.width, before.height]);
  for (let i = 0; i < event.objects.length; i++) {
    const edges = edgePixels(event, i, before);
    const unchanged = edges.filter(([x, y]) => distance(rgb(before, x, y), rgb(after, x, y)) <= tolerance);
    expect(unchanged, `object ${i} of event ${event.id}: edge pixels left as they were`).toEqual([]);
  }
  let compared = 0;
  const changedFar: Array<[number, number]> = [];
  for (let y = 0; y < before.height; y += 2) {
    for (let x = 0; x < before.width; x += 2) {
      if (!far(event, x, y, before)) continue;
      compared++;
      if (distance(rgb(before, x, y), rgb(after, x, y)) > tolerance) changedFar.push([x, y]);
    }
  }
  expect(changedFar.slice(0, 5), `event ${event.id}: pixels far from any box changed`).toEqual([]);
  return compared;
}

describe('annotated snapshots of the simulator real images', () => {
  it('client.media.annotatedSnapshot draws every box and label, and nothing else (extended form)', async () => {
    const sim = await simulator({ form: 'extended', historySize: 60 });
    const c = client(optionsFor(sim));
    let farCompared = 0;
    for (const event of await eventsWithObjects(c, 6)) {
      const original = await c.media.download(event, 'image');
      const annotated = await c.media.annotatedSnapshot(event);
      expect(annotated).toMatchObject({
        contentType: 'image/png',
        width: 640,
        height: 360,
        fileName: `event-${event.id}-annotated.png`,
        drawn: event.objects.length,
      });
      farCompared += expectAnnotated(event, decodePng(original.data), decodePng(annotated.data), 0);
    }
    expect(farCompared).toBeGreaterThan(10_000); // the "far" check compared a real share of the images
  });

  it('annotateSnapshot on downloaded bytes does the same (basic form, raw payloads too)', async () => {
    const sim = await simulator({ form: 'basic', historySize: 60 });
    const c = client(optionsFor(sim, { serviceId: undefined, form: 'basic' }));
    for (const event of await eventsWithObjects(c, 3)) {
      const original = await c.media.download(event, 'image');
      const annotated = annotateSnapshot(original.data, event.objects, { fileName: original.fileName });
      expect(annotated.fileName).toBe(original.fileName.replace(/\.png$/, '-annotated.png'));
      expectAnnotated(event, decodePng(original.data), decodePng(annotated.data), 0);
      // The client method gives the same pixels.
      expect((await c.media.annotatedSnapshot(event)).data.equals(annotated.data)).toBe(true);
    }
  });

  it('a raw payload is annotated from its detected_objects; a bare URL needs options.objects', async () => {
    const sim = await simulator({ form: 'extended', historySize: 60 });
    const c = client(optionsFor(sim));
    const [event] = await eventsWithObjects(c, 1);
    if (!event?.id || !event.imageUrl) throw new Error('expected an event');
    const record = sim.getEvent(event.id);
    if (!record) throw new Error('expected the record');
    const fromEvent = await c.media.annotatedSnapshot(event);
    const fromRaw = await c.media.annotatedSnapshot(
      extendedPayload(record) as unknown as Record<string, unknown>,
    );
    expect(fromRaw.data.equals(fromEvent.data)).toBe(true);

    await expect(c.media.annotatedSnapshot(event.imageUrl)).rejects.toSatisfy(
      (error) => ValidationError.isInstance(error) && error.parameter === 'objects',
    );
    const fromUrl = await c.media.annotatedSnapshot(event.imageUrl, { objects: event.objects });
    expect(fromUrl.data.equals(fromEvent.data)).toBe(true);
  });

  it('warning objects get their own colour and a thicker outline', async () => {
    const sim = await simulator({ form: 'extended', historySize: 60 });
    const c = client(optionsFor(sim));
    const events = await c.events.history({ limit: 100 });
    const warning = events.flatMap((e) => e.objects).find((o) => o.warning && o.box.w > 0.1 && o.box.h > 0.1);
    const ordinary = events
      .flatMap((e) => e.objects)
      .find((o) => !o.warning && o.box.w > 0.1 && o.box.h > 0.1);
    const event = events[0];
    if (!warning || !ordinary || !event) throw new Error('expected both kinds of objects');
    const outline = async (object: typeof warning) => {
      const annotated = await c.media.annotatedSnapshot(event, { objects: [object], labels: false });
      const image = decodePng(annotated.data);
      const x0 = Math.max(0, Math.round((object.box.cx - object.box.w / 2) * 640));
      const y = Math.round(object.box.cy * 360);
      const colour = rgb(image, x0, y);
      let thickness = 0;
      while (distance(rgb(image, x0 + thickness, y), colour) === 0) thickness++;
      return { colour, thickness };
    };
    const w = await outline(warning);
    const o = await outline(ordinary);
    expect(distance(w.colour, o.colour)).toBeGreaterThan(100);
    expect(w.thickness).toBeGreaterThan(o.thickness);
    expect(o.thickness).toBe(2);
  });

  it('JPEG out and JPEG in: boxes drawn, the rest of the image kept (within JPEG loss)', async () => {
    const sim = await simulator({ form: 'extended', historySize: 60 });
    const c = client(optionsFor(sim));
    const [event] = await eventsWithObjects(c, 1);
    if (!event) throw new Error('expected an event');
    const original = decodePng((await c.media.download(event, 'image')).data);

    // JPEG blurs thin lines, so colours far from the simulator's own (its warning outline is a red
    // close to ours) and no labels (black text on the dark background): the check is then about
    // JPEG handling; the default colours and labels are checked pixel-exact on PNG above.
    const style = { lineWidth: 4, labels: false, colors: { box: '#FFFF00', warning: '#00FFFF' } };
    const asJpeg = await c.media.annotatedSnapshot(event, { format: 'jpeg', quality: 95, ...style });
    expect(asJpeg).toMatchObject({ contentType: 'image/jpeg', fileName: `event-${event.id}-annotated.jpg` });
    expect(asJpeg.data.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expectAnnotated(event, original, decodeJpeg(asJpeg.data), 40);

    // A JPEG snapshot (as many deployments serve) is annotated and stays JPEG.
    const jpegInput = jpeg.encode({ width: 640, height: 360, data: original.data }, 95).data;
    const fromJpeg = annotateSnapshot(jpegInput, event.objects, style);
    expect(fromJpeg.contentType).toBe('image/jpeg');
    expectAnnotated(event, decodeJpeg(jpegInput), decodeJpeg(fromJpeg.data), 40);
  });

  it('zero objects: the image comes back unchanged (same bytes; same pixels after a format change)', async () => {
    const sim = await simulator({ form: 'extended', historySize: 60 });
    const c = client(optionsFor(sim));
    const events = await c.events.history({ limit: 100 });
    const empty = events.find((e) => e.objects.length === 0);
    if (!empty) throw new Error('expected an event without objects');
    const original = await c.media.download(empty, 'image');
    const annotated = await c.media.annotatedSnapshot(empty);
    expect(annotated.drawn).toBe(0);
    expect(annotated.data.equals(original.data)).toBe(true);

    const converted = await c.media.annotatedSnapshot(empty, { format: 'jpeg', quality: 95 });
    const before = decodePng(original.data);
    const after = decodeJpeg(converted.data);
    let worst = 0;
    for (let y = 0; y < 360; y += 3)
      for (let x = 0; x < 640; x += 3) worst = Math.max(worst, distance(rgb(before, x, y), rgb(after, x, y)));
    expect(worst).toBeLessThan(12);
  });

  it('a missing snapshot with no media wait fails at once, naming it; options are checked before any request', async () => {
    const sim = await simulator({ form: 'extended', historySize: 5 });
    const c = client(optionsFor(sim, { retry: { attempts: 1 } }));
    const [event] = await c.events.history({ limit: 1 });
    if (!event) throw new Error('expected an event');
    sim.control.failNext(1, 404);
    await expect(c.media.annotatedSnapshot(event, { waitMs: 0 })).rejects.toSatisfy(
      (error) =>
        MediaMissingError.isInstance(error) &&
        error.status === 404 &&
        error.waitedMs === 0 &&
        error.message.includes('maybe not written yet: it was not waited for') &&
        HttpError.isInstance(error.cause),
    );
    const requests = sim.control.stats().requests;
    await expect(c.media.annotatedSnapshot(event, { quality: 0 })).rejects.toSatisfy(
      (error) => ValidationError.isInstance(error) && error.parameter === 'quality',
    );
    expect(sim.control.stats().requests).toBe(requests);
  });
});
