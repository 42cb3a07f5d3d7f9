import { describe, expect, it } from 'vitest';
import { type EventMedia, MediaMissingError, type ObservationEvent } from '../src/index.js';
import { client, optionsFor, simulator, until } from './helpers.js';

// Snapshots written after the event is published, as real NVRs do (404 until then).
const writtenLate = {
  form: 'extended' as const,
  mediaDelay: { snapshotMs: { min: 0, max: 0 }, clipMs: { min: 0, max: 0 }, busyMs: 0 },
};

interface Handed {
  event: ObservationEvent;
  media: EventMedia | undefined;
}

describe('subscribe with media: each event handed over with its images', () => {
  it('fresh events whose snapshots appear late arrive with both images, in order per task, downloads overlapping', async () => {
    const sim = await simulator(writtenLate);
    const c = client(optionsFor(sim));
    const handed: Handed[] = [];
    const errors: Error[] = [];
    const sub = c.events.subscribe(
      [1, 2],
      {
        onEvent: async (event, meta) => {
          handed.push({ event, media: meta.media });
        },
        onError: (error) => void errors.push(error),
      },
      { media: { snapshot: true, annotated: true, waitMs: 10_000 } },
    );
    await until(() => sub.state === 'open', 'open');
    const before = sim.control.stats();
    const emitted = await sim.control.emit(12, { taskIds: [1, 2], latenessMs: 0, snapshotDelayMs: 1_200 });
    await until(() => handed.length === 12, '12 events handed over', 20_000);
    // Overlap, shown by the service: every snapshot was asked for before it existed, so each of
    // the 12 got a 404 first. One at a time, only the first would (the others, all written
    // 1.2 s after the emit, exist by the time the first is done): about 3 404s in all.
    expect(sim.control.stats().mediaNotFound - before.mediaNotFound).toBeGreaterThanOrEqual(12);
    for (const { media } of handed) {
      expect(media?.missing).toEqual([]);
      expect(media?.snapshot?.data.subarray(1, 4).toString()).toBe('PNG');
      expect(media?.annotated?.contentType).toBe('image/png');
    }
    for (const task of [1, 2]) {
      const sent = emitted.filter((event) => event.task_id === task).map((event) => event.id);
      expect(handed.filter(({ event }) => event.taskId === task).map(({ event }) => event.id)).toEqual(sent);
    }
    expect(errors).toEqual([]);
    await sub.close();
  });

  it('a snapshot that never appears: the event goes out once within the wait, flagged, reported once; the next one follows', async () => {
    const sim = await simulator(writtenLate);
    const c = client(optionsFor(sim));
    const handed: Handed[] = [];
    const errors: Error[] = [];
    const sub = c.events.subscribe(
      [1],
      {
        onEvent: (event, meta) => void handed.push({ event, media: meta.media }),
        onError: (error) => void errors.push(error),
      },
      { media: { annotated: true, waitMs: 1_000 } },
    );
    await until(() => sub.state === 'open', 'open');
    const [never] = await sim.control.emit(1, { taskIds: [1], latenessMs: 0, snapshotDelayMs: 'never' });
    const [next] = await sim.control.emit(1, { taskIds: [1], latenessMs: 0, snapshotDelayMs: 0 });
    await until(() => handed.length === 2, '2 events handed over', 10_000);
    expect(handed.map(({ event }) => event.id)).toEqual([never?.id, next?.id]);
    expect(handed[0]?.media?.missing).toEqual(['annotated']);
    expect(handed[0]?.media?.annotated).toBeUndefined();
    expect(MediaMissingError.isInstance(handed[0]?.media?.error)).toBe(true);
    expect(handed[1]?.media?.missing).toEqual([]);
    expect(handed[1]?.media?.annotated?.data.length).toBeGreaterThan(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain(`/media/snapshots/${never?.id}.png`);
    expect(errors[0]?.message).not.toContain(sim.token);
    await sub.close();
  });

  it('a late event caught up after a drop waits for its snapshot, written after it is published, not after its time', async () => {
    const sim = await simulator({ ...writtenLate, historySize: 0 });
    const c = client(optionsFor(sim));
    const handed: Handed[] = [];
    const errors: Error[] = [];
    const sub = c.events.subscribe(
      [1],
      {
        onEvent: (event, meta) => void handed.push({ event, media: meta.media }),
        onError: (error) => void errors.push(error),
      },
      // Covering the 2 minutes before the start, so a catch-up may deliver an event that old.
      { media: { snapshot: true, waitMs: 10_000 }, lookBackMs: 120_000 },
    );
    await until(() => sub.state === 'open', 'open');
    const [first] = await sim.control.emit(1, { taskIds: [1], latenessMs: 0, snapshotDelayMs: 0 });
    await until(() => handed.length === 1, 'the first event');
    // While the socket is down: an event published 60 s after its time (within the allowed
    // lateness, 120 s), whose snapshot the service writes 6 s after publishing it, well after the
    // catch-up that reconnects 1 s later reads it. Only that catch-up can find it: it comes from
    // history, not live. By its time alone it is older than the 10 s wait.
    sim.control.refuseConnections(1_000);
    sim.control.dropConnections();
    await until(() => sub.state !== 'open', 'the drop');
    const [late] = await sim.control.emit(1, { taskIds: [1], latenessMs: 60_000, snapshotDelayMs: 6_000 });
    await until(() => handed.some(({ event }) => event.id === late?.id), 'the late event', 30_000);
    expect(handed.map(({ event }) => event.id)).toEqual([first?.id, late?.id]);
    const lateOne = handed.find(({ event }) => event.id === late?.id);
    expect(lateOne?.media?.missing).toEqual([]);
    expect(lateOne?.media?.snapshot?.data.subarray(1, 4).toString()).toBe('PNG');
    expect(errors.map((error) => error.message).join('\n')).not.toContain(`/media/snapshots/${late?.id}.png`);
    await sub.close();
  });

  it('batches get their images too, and a bad media option is refused naming the field', async () => {
    const sim = await simulator(writtenLate);
    const c = client(optionsFor(sim));
    const batches: Array<Array<EventMedia | undefined>> = [];
    const sub = c.events.subscribe(
      [1],
      { onBatch: (batch) => void batches.push(batch.metas.map((meta) => meta.media)) },
      { media: { snapshot: true }, batch: { size: 3, waitMs: 200 } },
    );
    await until(() => sub.state === 'open', 'open');
    await sim.control.emit(3, { taskIds: [1], latenessMs: 0, snapshotDelayMs: 300 });
    await until(() => batches.flat().length === 3, '3 events in batches', 10_000);
    for (const media of batches.flat()) expect(media?.snapshot?.data.length).toBeGreaterThan(0);
    await sub.close();
    expect(() => c.events.subscribe([1], { onEvent() {} }, { media: { waitMs: -5 } })).toThrow(
      /options\.media\.waitMs/,
    );
  });
});
