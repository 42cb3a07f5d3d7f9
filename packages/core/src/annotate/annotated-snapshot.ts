import type { Readable } from 'node:stream';
import { ProtocolError } from '../errors/protocol-error.js';
import { ValidationError } from '../errors/validation-error.js';
import type { DownloadOptions, MediaDownload, MediaSource } from '../media-download.js';
import type { DetectedObject } from '../model/observation-event.js';
import { readDetectedObjects } from '../normalize/detected-objects.js';
import type { AnnotatedSnapshot, AnnotateOptions, Annotator } from '../ports.js';
import { resolveAnnotateOptions } from './annotate-options.js';
import { annotateSnapshot } from './annotate-snapshot.js';

/** Options of `client.media.annotatedSnapshot`: drawing, download and, optionally, the objects. */
export interface AnnotatedSnapshotOptions extends AnnotateOptions, DownloadOptions {
  /** Objects to draw instead of the event's own (`event.objects`, or `detected_objects` of a raw payload). */
  objects?: readonly DetectedObject[];
  /** Draws the image (default: `annotateSnapshot` on this thread); e.g. `annotationWorker(...).annotate`. */
  annotate?: Annotator;
}

type ImageDownloader = (
  source: MediaSource,
  kind: 'image',
  options?: DownloadOptions,
) => Promise<MediaDownload<Buffer> | MediaDownload<Buffer | Readable>>;

/** The objects of a normalized event, or of a raw payload's `detected_objects` (bad entries skipped). */
function objectsOf(source: MediaSource): readonly DetectedObject[] {
  if (source !== null && typeof source === 'object') {
    const record = source as Record<string, unknown>;
    if (Array.isArray(record.objects)) return record.objects as DetectedObject[];
    if (record.detected_objects !== undefined) return readDetectedObjects(record.detected_objects, []);
    return [];
  }
  throw new ValidationError(
    'objects',
    'a URL without objects',
    'an event (its objects are drawn) or options.objects together with the URL',
  );
}

/** Downloads the snapshot of `source` (through `download`) and annotates it with its objects. */
export async function downloadAnnotatedSnapshot(
  download: ImageDownloader,
  source: MediaSource,
  options: AnnotatedSnapshotOptions = {},
): Promise<AnnotatedSnapshot> {
  resolveAnnotateOptions(options); // refuse bad options before any request
  const objects = options.objects ?? objectsOf(source);
  const {
    signal,
    timeoutMs,
    maxBytes,
    waitMs,
    receivedAt,
    objects: _objects,
    annotate,
    ...drawing
  } = options;
  const downloadOptions: DownloadOptions = {};
  if (signal !== undefined) downloadOptions.signal = signal;
  if (timeoutMs !== undefined) downloadOptions.timeoutMs = timeoutMs;
  if (maxBytes !== undefined) downloadOptions.maxBytes = maxBytes;
  if (waitMs !== undefined) downloadOptions.waitMs = waitMs;
  if (receivedAt !== undefined) downloadOptions.receivedAt = receivedAt;
  const image = await download(source, 'image', downloadOptions);
  if (!Buffer.isBuffer(image.data)) throw new ProtocolError('the snapshot download did not return bytes');
  return annotateDownloaded(
    image as MediaDownload<Buffer>,
    objects,
    drawing,
    annotate ?? (async (...args) => annotateSnapshot(...args)),
  );
}

/** Annotates a downloaded snapshot; an image the service sent that cannot be decoded is a ProtocolError. */
export async function annotateDownloaded(
  image: MediaDownload<Buffer>,
  objects: readonly DetectedObject[],
  drawing: AnnotateOptions,
  annotate: Annotator,
): Promise<AnnotatedSnapshot> {
  try {
    return await annotate(image.data, objects, { ...drawing, fileName: drawing.fileName ?? image.fileName });
  } catch (error) {
    // The bytes came from the service, so a bad image is the service's answer, not the caller's input.
    if (ValidationError.isInstance(error) && error.parameter === 'image') {
      throw new ProtocolError(
        `The snapshot ${image.fileName} (${image.contentType}) is not a usable image: ${error.given}`,
        { cause: error, sample: image.data.subarray(0, 16).toString('hex') },
      );
    }
    throw error;
  }
}
