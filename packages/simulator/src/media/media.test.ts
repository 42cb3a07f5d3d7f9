import { inflateSync, crc32 as zlibCrc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../simulator.js';
import type { DetectedObject } from '../types.js';
import { crc32 } from './png-encoder.js';
import {
  OUTLINE_WIDTH,
  pixelBox,
  renderSnapshot,
  SNAPSHOT_COLOURS,
  SNAPSHOT_HEIGHT,
  SNAPSHOT_WIDTH,
} from './snapshot-renderer.js';

/** A strict little PNG reader for the test: checks signature, chunk CRCs and filter bytes. */
function decodePng(png: Buffer): { width: number; height: number; pixel(x: number, y: number): number[] } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  const types: string[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    expect(png.readUInt32BE(offset + 8 + length)).toBe(
      zlibCrc32(png.subarray(offset + 4, offset + 8 + length)),
    );
    types.push(type);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([data[8], data[9], data[10], data[11], data[12]]).toEqual([8, 2, 0, 0, 0]);
    }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  expect(types[0]).toBe('IHDR');
  expect(types.at(-1)).toBe('IEND');
  const raw = inflateSync(Buffer.concat(idat));
  expect(raw.length).toBe((width * 3 + 1) * height);
  return {
    width,
    height,
    pixel(x, y) {
      const start = y * (width * 3 + 1);
      expect(raw[start]).toBe(0);
      const at = start + 1 + x * 3;
      return [raw[at] as number, raw[at + 1] as number, raw[at + 2] as number];
    },
  };
}

describe('snapshot renderer', () => {
  it('the CRC32 matches zlib', () => {
    const data = Buffer.from('IEND and some bytes');
    expect(crc32(data)).toBe(zlibCrc32(data));
  });

  it('draws each box exactly where its normalized coordinates say, warning boxes in red', () => {
    const objects: DetectedObject[] = [
      {
        object_id: '1',
        object_name: 'person',
        coordinates: [0.25, 0.5, 0.2, 0.4],
        confidence_score: 0.9,
        warning: false,
      },
      {
        object_id: '2',
        object_name: 'car',
        coordinates: [0.75, 0.3, 0.3, 0.2],
        confidence_score: 0.8,
        warning: true,
      },
    ];
    const image = decodePng(renderSnapshot(objects));
    expect([image.width, image.height]).toEqual([SNAPSHOT_WIDTH, SNAPSHOT_HEIGHT]);
    const normal = pixelBox(objects[0]?.coordinates as DetectedObject['coordinates']);
    expect(normal).toEqual({ x0: 96, y0: 108, x1: 224, y1: 252 });
    expect(image.pixel(160, 180)).toEqual([...SNAPSHOT_COLOURS.objectFill]);
    expect(image.pixel(normal.x0, normal.y0)).toEqual([...SNAPSHOT_COLOURS.objectOutline]);
    expect(image.pixel(normal.x1 - 1, normal.y1 - 1)).toEqual([...SNAPSHOT_COLOURS.objectOutline]);
    expect(image.pixel(normal.x0 + OUTLINE_WIDTH, normal.y0 + OUTLINE_WIDTH)).toEqual([
      ...SNAPSHOT_COLOURS.objectFill,
    ]);
    expect(image.pixel(normal.x0 - 1, normal.y0)).toEqual([...SNAPSHOT_COLOURS.background]);
    expect(image.pixel(normal.x1, normal.y0)).toEqual([...SNAPSHOT_COLOURS.background]);
    const warning = pixelBox(objects[1]?.coordinates as DetectedObject['coordinates']);
    expect(image.pixel(480, 108)).toEqual([...SNAPSHOT_COLOURS.warningFill]);
    expect(image.pixel(warning.x0, warning.y0)).toEqual([...SNAPSHOT_COLOURS.warningOutline]);
    expect(image.pixel(5, 5)).toEqual([...SNAPSHOT_COLOURS.background]);
  });
});

describe('media endpoints', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ historySize: 200 });
  });
  afterAll(() => sim.stop());

  it('image_url + auth_token serves a PNG showing the event objects', async () => {
    const event = Array.from({ length: 200 }, (_, n) => sim.getEvent(n + 1)).find(
      (candidate) => candidate && candidate.detected_objects.length >= 2,
    );
    if (!event) throw new Error('seeded history has events with objects');
    const response = await fetch(`${event.image_url}?auth_token=${encodeURIComponent(sim.token)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const image = decodePng(Buffer.from(await response.arrayBuffer()));
    for (const object of event.detected_objects) {
      const box = pixelBox(object.coordinates);
      const edge = object.warning ? SNAPSHOT_COLOURS.warningOutline : SNAPSHOT_COLOURS.objectOutline;
      // Later boxes may overlap earlier ones: only the last box's edge is guaranteed.
      if (object === event.detected_objects.at(-1)) expect(image.pixel(box.x0, box.y0)).toEqual([...edge]);
    }
  });

  it('media needs a valid auth_token (or Bearer header): 401 without, 404 for unknown ids', async () => {
    const event = sim.getEvent(1);
    if (!event) throw new Error('record 1 exists');
    expect((await fetch(event.image_url)).status).toBe(401);
    expect((await fetch(`${event.image_url}?auth_token=wrong`)).status).toBe(401);
    expect((await fetch(event.video_url)).status).toBe(401);
    const header = await fetch(event.image_url, { headers: { authorization: `Bearer ${sim.token}` } });
    expect(header.status).toBe(200);
    await header.arrayBuffer();
    expect((await fetch(`${sim.apiUrl}/media/snapshots/99999.png?auth_token=${sim.token}`)).status).toBe(404);
    expect((await fetch(`${sim.apiUrl}/media/clips/abc.mp4?auth_token=${sim.token}`)).status).toBe(404);
  });

  it('video_url serves a real small MP4, with Range support', async () => {
    const event = sim.getEvent(5);
    if (!event) throw new Error('record 5 exists');
    const url = `${event.video_url}?auth_token=${encodeURIComponent(sim.token)}`;
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const clip = Buffer.from(await whole.arrayBuffer());
    expect(clip.length).toBeGreaterThan(2000);
    expect(clip.length).toBeLessThan(30_000);
    expect(clip.toString('ascii', 4, 8)).toBe('ftyp');
    expect(clip.includes(Buffer.from('moov'))).toBe(true);
    expect(clip.includes(Buffer.from('avc1'))).toBe(true);

    const part = await fetch(url, { headers: { range: 'bytes=4-11' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 4-11/${clip.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(clip.subarray(4, 12));
    const tail = await fetch(url, { headers: { range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(clip.subarray(clip.length - 10));
    const outside = await fetch(url, { headers: { range: `bytes=${clip.length}-` } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${clip.length}`);
  });
});
