import type { Readable } from 'node:stream';
import type { SimulatedEvent } from '@observation-service/simulator';
import { describe, expect, it } from 'vitest';
import { MediaMissingError, type MediaSource, ValidationError } from '../src/index.js';
import { client, optionsFor, simulator } from './helpers.js';

// A service that writes each file after it publishes the event: 404 until then, 503 with
// Retry-After in the last 400 ms of writing (what a busy NVR answers), as real deployments do.
const writtenLate = {
  form: 'extended' as const,
  mediaDelay: { snapshotMs: { min: 0, max: 0 }, clipMs: { min: 0, max: 0 }, busyMs: 400 },
};

/** A raw payload as the service sends it: one of the sources `download` accepts. */
const raw = (event: SimulatedEvent | undefined): MediaSource => event as unknown as MediaSource;

async function drain(stream: Readable): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).length;
  return bytes;
}

describe('media of a fresh event: waited for, within a bound', () => {
  it('a snapshot written 1.5 s after the event is downloaded once it is there (404s retried)', async () => {
    const sim = await simulator(writtenLate);
    const c = client(optionsFor(sim));
    const [event] = await sim.control.emit(1, { latenessMs: 0, snapshotDelayMs: 1_500 });
    if (!event) throw new Error('no event');
    const before = sim.control.stats();
    const image = await c.media.download(raw(event), 'image');
    const after = sim.control.stats();
    expect(image.data.subarray(1, 4).toString()).toBe('PNG');
    // It asked while the file was missing, then got it.
    expect(after.mediaNotFound - before.mediaNotFound).toBeGreaterThan(0);
    expect(Date.now()).toBeGreaterThanOrEqual(sim.control.mediaReadyAt(event.id).snapshotAt as number);
  });

  it('a file being written (503 with Retry-After) is waited for as the service asks', async () => {
    const sim = await simulator({ ...writtenLate, mediaDelay: { ...writtenLate.mediaDelay, busyMs: 2_000 } });
    const c = client(optionsFor(sim, { retry: { attempts: 1 } }));
    const [event] = await sim.control.emit(1, { latenessMs: 0, snapshotDelayMs: 1_000 });
    if (!event) throw new Error('no event');
    const image = await c.media.download(raw(event), 'image');
    expect(image.data.length).toBeGreaterThan(0);
    expect(sim.control.stats().mediaBusy).toBeGreaterThan(0);
  });

  it('a clip written after the recording ends is waited for too (its own, longer default)', async () => {
    const sim = await simulator(writtenLate);
    const c = client(optionsFor(sim));
    const [event] = await sim.control.emit(1, { latenessMs: 0, clipDelayMs: 1_200 });
    if (!event) throw new Error('no event');
    const clip = await c.media.download(raw(event), 'video');
    expect(await drain(clip.data)).toBeGreaterThan(0);
    expect(sim.control.stats().mediaNotFound).toBeGreaterThan(0);
  });

  it('a snapshot that never appears fails after the wait, naming the media (token hidden) and the wait', async () => {
    const sim = await simulator(writtenLate);
    const c = client(optionsFor(sim));
    const [event] = await sim.control.emit(1, { latenessMs: 0, snapshotDelayMs: 'never' });
    if (!event) throw new Error('no event');
    const error = await c.media.download(raw(event), 'image', { waitMs: 1_200 }).catch((e: unknown) => e);
    expect(MediaMissingError.isInstance(error)).toBe(true);
    const missing = error as MediaMissingError;
    expect(missing.media).toBe('snapshot');
    expect(missing.status).toBe(404);
    expect(missing.waitedMs).toBeGreaterThan(0);
    expect(missing.message).toContain(`/media/snapshots/${event.id}.png`);
    expect(missing.message).toMatch(
      /not there after waiting \d+\.\d s \(the service had not written it yet\)/,
    );
    expect(missing.message).not.toContain(sim.token);
    expect(missing.url).not.toContain(sim.token);
    // Retried with backoff, not hammered: 250, 500, 1000 ms steps fit a handful in 1.2 s.
    const asked = sim.control.stats().mediaRequests;
    expect(asked).toBeGreaterThan(1);
    expect(asked).toBeLessThan(10);
  });

  it("an old event's 404 is not retried: one request", async () => {
    const sim = await simulator(writtenLate);
    const c = client(optionsFor(sim));
    // Happened a minute ago: older than the default 10 s snapshot wait.
    const [event] = await sim.control.emit(1, { latenessMs: 60_000, snapshotDelayMs: 'never' });
    if (!event) throw new Error('no event');
    const before = sim.control.stats().mediaRequests;
    const error = await c.media.download(raw(event), 'image').catch((e: unknown) => e);
    expect(MediaMissingError.isInstance(error) && error.waitedMs === 0 && error.status === 404).toBe(true);
    expect((error as Error).message).toContain('an old event: not waited for');
    expect(sim.control.stats().mediaRequests - before).toBe(1);
  });

  it('a late-published event is fresh from when the host received it', async () => {
    const sim = await simulator(writtenLate);
    const c = client(optionsFor(sim));
    // Happened 30 s ago, published now, its snapshot written 800 ms later.
    const [event] = await sim.control.emit(1, { latenessMs: 30_000, snapshotDelayMs: 800 });
    if (!event) throw new Error('no event');
    const image = await c.media.download(raw(event), 'image', { receivedAt: Date.now() });
    expect(image.data.length).toBeGreaterThan(0);
  });

  it('aborting ends the wait at once; nothing is asked after it', async () => {
    const sim = await simulator(writtenLate);
    const c = client(optionsFor(sim));
    const [event] = await sim.control.emit(1, { latenessMs: 0, snapshotDelayMs: 'never' });
    if (!event) throw new Error('no event');
    const controller = new AbortController();
    const pending = c.media
      .download(raw(event), 'image', { signal: controller.signal })
      .catch((e: unknown) => e);
    // Abort once it has been told "not yet" at least once: the wait is under way.
    while (sim.control.stats().mediaNotFound === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort(new Error('stopped by the test'));
    expect(String(await pending)).toContain('stopped by the test');
    const asked = sim.control.stats().mediaRequests;
    // A later request proves the server is answering; the aborted wait added nothing before it.
    await c.media.download(raw(event), 'image', { waitMs: 0 }).catch(() => undefined);
    expect(sim.control.stats().mediaRequests).toBe(asked + 1);
  });

  it('a bad wait is refused naming the field, before any request', async () => {
    const sim = await simulator(writtenLate);
    const c = client(optionsFor(sim));
    const [event] = await sim.control.emit(1, { latenessMs: 0 });
    await expect(c.media.download(raw(event), 'image', { waitMs: -1 })).rejects.toSatisfy(
      (error) => ValidationError.isInstance(error) && error.parameter === 'waitMs',
    );
    expect(sim.control.stats().mediaRequests).toBe(0);
  });
});
