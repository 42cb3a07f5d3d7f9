import { annotateSnapshot } from '../annotate/annotate-snapshot.js';
import { annotateDownloaded } from '../annotate/annotated-snapshot.js';
import type { DownloadOptions, MediaDownload } from '../media-download.js';
import type { ObservationEvent } from '../model/observation-event.js';
import type { EventMedia, ResolvedMediaOptions } from './event-media.js';

export interface MediaPreparation {
  settings: ResolvedMediaOptions;
  download(event: ObservationEvent, options: DownloadOptions): Promise<MediaDownload<Buffer>>;
  now(): number;
  /** Reports why an image is missing: once per event. */
  report(error: Error): void;
  /** Aborted when the subscription ends: its downloads and waits stop. */
  signal: AbortSignal;
}

const drawHere = async (...args: Parameters<typeof annotateSnapshot>) => annotateSnapshot(...args);

/**
 * The images one event goes out with. Never rejects: a missing image is a flag on the event (and
 * one report), never a lost or held event. A live event's snapshot is waited for from its
 * arrival (a late-published event's file is written after it is published); a caught-up one's
 * from its time, so an old event is not waited for.
 */
export async function prepareMedia(
  prep: MediaPreparation,
  event: ObservationEvent,
  source: 'live' | 'backfill',
): Promise<EventMedia> {
  const { settings } = prep;
  if (!event.imageUrl) return { missing: [...settings.wanted] };
  const options: DownloadOptions = { waitMs: settings.waitMs, signal: prep.signal };
  if (source === 'live') options.receivedAt = prep.now();
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
