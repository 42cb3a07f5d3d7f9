import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as jpeg from 'jpeg-js';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../simulator.js';
import { writeCameraFrame } from './camera-frame.js';

describe('snapshotFile: a camera frame served as every snapshot', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-snapshot-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the file as given, as a JPEG, for every event', async () => {
    const frame = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 0xff, 0xd9]);
    const file = join(dir, 'frame.jpg');
    writeFileSync(file, frame);
    const sim = await startSimulator({ snapshotFile: file });
    try {
      const [a, b] = await sim.control.emit(2, { latenessMs: 0 });
      for (const event of [a, b]) {
        const response = await fetch(`${event?.image_url}?auth_token=${encodeURIComponent(sim.token)}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('image/jpeg');
        expect(response.headers.get('content-disposition')).toBe(`inline; filename="event-${event?.id}.jpg"`);
        expect(Buffer.from(await response.arrayBuffer()).equals(frame)).toBe(true);
      }
    } finally {
      await sim.stop();
    }
  });

  it('refuses what is not an image path, naming the option', async () => {
    await expect(startSimulator({ snapshotFile: 'frame.gif' })).rejects.toThrow(
      /snapshotFile must be the path/,
    );
  });

  it('writeCameraFrame: a 1080p camera-like JPEG to serve', () => {
    const file = writeCameraFrame(dir);
    const decoded = jpeg.decode(readFileSync(file));
    expect([decoded.width, decoded.height]).toEqual([1920, 1080]);
    expect(readFileSync(file).length).toBeGreaterThan(100_000);
  });
});
