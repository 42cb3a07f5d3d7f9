import { resolveAnnotateOptions } from '../annotate/annotate-options.js';
import { ValidationError } from '../errors/validation-error.js';
import type { MediaDownload } from '../media-download.js';
import type { AnnotatedSnapshot, AnnotateOptions, Annotator } from '../ports.js';
import { describeValue } from '../validation/describe-value.js';
import { checkMediaWait, defaultMediaWaitMs } from './media-wait.js';

/** An image a subscription can prepare for each event before handing it over. */
export type EventImage = 'snapshot' | 'annotated';

/**
 * The subscribe option `media`: the images each event is handed over with. They are downloaded
 * (a fresh event's snapshot waited for, up to `waitMs`) while earlier events are with the host,
 * and each event still reaches the handler in order per task.
 */
export interface SubscribeMediaOptions {
  /** The snapshot as downloaded (`meta.media.snapshot`). */
  snapshot?: boolean;
  /** The snapshot with the detected objects drawn on it (`meta.media.annotated`); options as `annotateSnapshot`'s. */
  annotated?: boolean | AnnotateOptions;
  /** How long a fresh event's snapshot may take to appear, in ms (default 10000, at most 600000). */
  waitMs?: number;
  /** Draws the annotated image (default: core's `annotateSnapshot` on this thread); e.g. a worker's. */
  annotate?: Annotator;
}

/** What an event is handed over with under the `media` option (`meta.media`). */
export interface EventMedia {
  snapshot?: MediaDownload<Buffer>;
  annotated?: AnnotatedSnapshot;
  /**
   * The images asked for that the event goes out without: its snapshot did not appear within the
   * wait, could not be downloaded or drawn, or the event has no image URL. Empty when all came.
   */
  missing: EventImage[];
  /** Why an image is missing (also reported once through `onError`); none for an event without image URL. */
  error?: Error;
}

export interface ResolvedMediaOptions {
  snapshot: boolean;
  annotated: AnnotateOptions | undefined;
  waitMs: number;
  annotate: Annotator | undefined;
  wanted: EventImage[];
}

/** Checks the `media` option (errors name the field) once, when subscribing. */
export function resolveMediaOptions(value: unknown): ResolvedMediaOptions | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError(
      'options.media',
      describeValue(value),
      'an object { snapshot?, annotated?, waitMs?, annotate? }',
    );
  }
  const given = value as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!['snapshot', 'annotated', 'waitMs', 'annotate'].includes(key) && given[key] !== undefined)
      throw new ValidationError(
        `options.media.${key}`,
        'an unknown option',
        'snapshot, annotated, waitMs, annotate',
      );
  }
  if (given.snapshot !== undefined && typeof given.snapshot !== 'boolean')
    throw new ValidationError('options.media.snapshot', describeValue(given.snapshot), 'true or false');
  const annotatedGiven = given.annotated;
  if (
    annotatedGiven !== undefined &&
    typeof annotatedGiven !== 'boolean' &&
    (typeof annotatedGiven !== 'object' || annotatedGiven === null)
  )
    throw new ValidationError(
      'options.media.annotated',
      describeValue(annotatedGiven),
      'true, false or annotate options',
    );
  const annotated =
    annotatedGiven === true ? {} : annotatedGiven ? (annotatedGiven as AnnotateOptions) : undefined;
  if (annotated) resolveAnnotateOptions(annotated);
  if (given.annotate !== undefined && typeof given.annotate !== 'function')
    throw new ValidationError('options.media.annotate', describeValue(given.annotate), 'a function');
  const snapshot = given.snapshot === true;
  const wanted: EventImage[] = [];
  if (snapshot) wanted.push('snapshot');
  if (annotated) wanted.push('annotated');
  return {
    snapshot,
    annotated,
    waitMs: checkMediaWait(given.waitMs, 'options.media.waitMs', defaultMediaWaitMs.snapshot),
    annotate: given.annotate as Annotator | undefined,
    wanted,
  };
}
