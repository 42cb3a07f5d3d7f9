import { annotateSnapshot } from '../annotate/annotate-snapshot.js';
import { annotateDownloaded } from '../annotate/annotated-snapshot.js';
import type { DownloadOptions, MediaDownload } from '../media-download.js';
import type { ObservationEvent } from '../model/observation-event.js';
import type { EventMedia, ResolvedMediaOptions } from './event-media.js';

export interface MediaPreparation {
  settings: ResolvedMediaOptions;
  download(event: ObservationEvent, options: DownloadOptions): Promise<MediaDownload<Buffer>>;
  now(): number;
  /**
   * How long after its time an event may be published (the subscription's allowed lateness): an
   * event read from history may have been published that late, its files written after that.
   */
  latenessMs: number;
  /** Reports why an image is missing: once per event. */
  report(error: Error): void;
  /** Aborted when the subscription ends: its downloads and waits stop. */
  signal: AbortSignal;
}

const drawHere = async (...args: Parameters<typeof annotateSnapshot>) => annotateSnapshot(...args);

/**
 * The images one event goes out with. Never rejects: a missing image is a flag on the event (and
 * one report), never a lost or held event. A service writes an event's snapshot a few seconds
 * after it PUBLISHES the event, and a late event is published long after its time. So a live
 * event's snapshot is waited for from its arrival; a caught-up one's (read from history: a catch-up
 * after a reconnect, a read-back, a test event) from the latest moment it can have been published,
 * its time plus the allowed lateness, or from now if that is earlier: a late event published just
 * before it was read is waited for, an event older than the lateness and the wait is not.
 */
export async function prepareMedia(
  prep: MediaPreparation,
  event: ObservationEvent,
  source: 'live' | 'backfill',
): Promise<EventMedia> {
  const { settings } = prep;
  if (!event.imageUrl) return { missing: [...settings.wanted] };
  const options: DownloadOptions = { waitMs: settings.waitMs, signal: prep.signal };
  options.receivedAt =
    source === 'live' ? prep.now() : Math.min(prep.now(), event.occurredAt.getTime() + prep.latenessMs);
  let image: MediaDownload<Buffer>;
  try {
    image = await prep.download(event, options);
  } catch (error) {
    return missing(prep, settings.wanted, error);
  }
  const media: EventMedia = { missing: [] };
  if (settings.snapshot) media.snapshot = image;
  if (settings.annotated) {
    try {
      media.annotated = await annotateDownloaded(
        image,
        event.objects,
        settings.annotated,
        settings.annotate ?? drawHere,
      );
    } catch (error) {
      return { ...media, ...missing(prep, ['annotated'], error) };
    }
  }
  return media;
}

function missing(prep: MediaPreparation, images: EventMedia['missing'], cause: unknown): EventMedia {
  const error = cause instanceof Error ? cause : new Error(String(cause));
  // A subscription that is closing says nothing more about the event it will not hand over.
  if (!prep.signal.aborted) prep.report(error);
  return { missing: [...images], error };
}
