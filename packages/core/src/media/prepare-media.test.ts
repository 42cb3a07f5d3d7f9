import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import { MediaMissingError } from '../errors/media-missing-error.js';
import type { ObservationEvent } from '../model/observation-event.js';
import { createClient } from '../node/create-client.js';
import { type MediaPreparation, prepareMedia } from './prepare-media.js';

// An event read from history (a catch-up, a read-back, a test event) may have been published up
// to the allowed lateness after its time, and a service writes its snapshot seconds after it
// PUBLISHES it: such an event is waited for; one older than the lateness and the wait is not.

describe('prepareMedia for an event read from history', () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  async function preparation(reports: Error[]): Promise<MediaPreparation> {
    sim = await startSimulator({ historySize: 0 });
    const client = createClient({
      url: sim.siteUrl,
      serviceId: sim.serviceId,
      form: 'extended',
      auth: { token: sim.token },
    });
    return {
      settings: {
        snapshot: true,
        annotated: undefined,
        annotate: undefined,
        waitMs: 5_000,
        wanted: ['snapshot'],
      },
      download: (event, options) => client.media.download(event, 'image', options),
      now: () => Date.now(),
      latenessMs: 120_000,
      report: (error) => void reports.push(error),
      signal: new AbortController().signal,
    };
  }

  /** The fields prepareMedia reads of a normalized event. */
  const asEvent = (raw: { image_url: string; timestamp: string }) =>
    ({
      imageUrl: raw.image_url,
      occurredAt: new Date(raw.timestamp),
      objects: [],
    }) as unknown as ObservationEvent;

  it('a late one published just now waits for its snapshot', async () => {
    const reports: Error[] = [];
    const prep = await preparation(reports);
    // Happened a minute ago, published now, its snapshot written 1 s after publication.
    const [late] = await sim.control.emit(1, { latenessMs: 60_000, snapshotDelayMs: 1_000 });
    const media = await prepareMedia(prep, asEvent(late as never), 'backfill');
    expect(media.missing).toEqual([]);
    expect(media.snapshot?.contentType).toBe('image/png');
    expect(reports).toEqual([]);
  });

  it('one older than the lateness and the wait is not waited for: one request', async () => {
    const reports: Error[] = [];
    const prep = await preparation(reports);
    const [old] = await sim.control.emit(1, { latenessMs: 130_000, snapshotDelayMs: 'never' });
    const before = sim.control.stats().mediaRequests;
    const media = await prepareMedia(prep, asEvent(old as never), 'backfill');
    expect(media.missing).toEqual(['snapshot']);
    expect(MediaMissingError.isInstance(media.error)).toBe(true);
    expect(media.error?.message).toContain('an old event: not waited for');
    expect(sim.control.stats().mediaRequests - before).toBe(1);
    expect(reports).toHaveLength(1);
  });
});
