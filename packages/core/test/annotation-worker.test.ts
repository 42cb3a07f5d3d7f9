import * as jpeg from 'jpeg-js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AnnotationWorker,
  annotateSnapshot,
  annotationWorker,
  type DetectedObject,
  ValidationError,
} from '../src/index.js';

const workerFile = new URL('./support/annotation-worker.mjs', import.meta.url);
const objects: DetectedObject[] = [
  {
    objectId: '1',
    name: 'person',
    confidence: 0.91,
    box: { cx: 0.3, cy: 0.45, w: 0.3, h: 0.5 },
    warning: false,
  },
  { objectId: '2', name: 'car', confidence: 0.8, box: { cx: 0.7, cy: 0.55, w: 0.4, h: 0.3 }, warning: true },
];

/** A 1080p camera-like JPEG (noise, so the codec has real work). */
function frame1080p(): Buffer {
  const width = 1920;
  const height = 1080;
  const data = Buffer.alloc(width * height * 4);
  let seed = 7;
  for (let i = 0; i < data.length; i += 4) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    data[i] = seed & 0xff;
    data[i + 1] = (seed >> 8) & 0xff;
    data[i + 2] = (seed >> 16) & 0xff;
    data[i + 3] = 255;
  }
  return jpeg.encode({ data, width, height }, 80).data;
}

const workers: AnnotationWorker[] = [];
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.close();
});
function started(): AnnotationWorker {
  const worker = annotationWorker(workerFile);
  workers.push(worker);
  return worker;
}

describe('annotation in a worker thread', () => {
  const image = frame1080p();

  it('gives the same image as annotating here, while this thread stays free to run', async () => {
    const worker = started();
    const here = annotateSnapshot(image, objects, { quality: 80 });
    let ranMeanwhile = false;
    let done = false;
    setImmediate(() => {
      ranMeanwhile = !done;
    });
    const there = await worker.annotate(image, objects, { quality: 80 });
    done = true;
    // The event loop turned while the worker drew: a job on this thread would have blocked it.
    expect(ranMeanwhile).toBe(true);
    expect([there.width, there.height, there.drawn, there.contentType]).toEqual([
      1920,
      1080,
      2,
      'image/jpeg',
    ]);
    expect(Buffer.isBuffer(there.data)).toBe(true);
    expect(there.data.equals(here.data)).toBe(true);
  });

  it('refuses what annotateSnapshot refuses, with the same error; the caller keeps its image', async () => {
    const worker = started();
    const error = await worker.annotate(Buffer.from('not an image'), [], {}).catch((e: unknown) => e);
    expect(ValidationError.isInstance(error) && error.parameter === 'image').toBe(true);
    const bad = await worker.annotate(image, [], { quality: 0 }).catch((e: unknown) => e);
    expect(ValidationError.isInstance(bad) && bad.parameter === 'quality').toBe(true);
    // The job got a copy: the caller's buffer is still whole.
    expect(image.length).toBeGreaterThan(1000);
    expect(jpeg.decode(image).width).toBe(1920);
  });

  it('with two threads, jobs spread over them each get their own answer; a bad thread count is refused', async () => {
    const worker = annotationWorker(workerFile, { threads: 2 });
    workers.push(worker);
    const [png, jpg] = await Promise.all([
      worker.annotate(image, objects, { format: 'png' }),
      worker.annotate(image, objects, { format: 'jpeg' }),
    ]);
    expect([png.contentType, jpg.contentType]).toEqual(['image/png', 'image/jpeg']);
    expect(() => annotationWorker(workerFile, { threads: 0 })).toThrow(/Invalid threads/);
  });

  it('close rejects the jobs still running; a closed worker starts again for the next job', async () => {
    const worker = started();
    const running = worker.annotate(image, objects, {}).catch((e: unknown) => e);
    await worker.close();
    expect(String(await running)).toMatch(/closed/);
    const again = await worker.annotate(image, objects, { format: 'png', quality: 50 });
    expect(again.contentType).toBe('image/png');
  });
});
