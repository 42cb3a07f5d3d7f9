import { ObservationError } from './observation-error.js';
import { redactUrl } from './redact-url.js';

const marker = 'observation-service.core.error.media-missing';
const symbol = Symbol.for(marker);

/** Which file of an event: its snapshot (image) or its clip (video). */
export type MediaName = 'snapshot' | 'clip';

export interface MediaMissingOptions {
  media: MediaName;
  url: string;
  /** How long core waited for the file to appear (0: an old event, not waited for). */
  waitedMs: number;
  /** An event older than its wait: not waited for. */
  old?: boolean;
  /** The last answer: the HTTP status, or undefined when the download failed otherwise. */
  status?: number;
  cause?: unknown;
}

/**
 * An event's snapshot or clip was not there: not yet written when the media wait ran out, or
 * (an old event) not there at all. The URL is redacted; `waitedMs` says how long core waited.
 */
export class MediaMissingError extends ObservationError {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through Symbol.for() in isInstance
  private readonly [symbol] = true;
  readonly media: MediaName;
  /** The media URL with its token replaced by `***`. */
  readonly url: string;
  readonly waitedMs: number;
  readonly status: number | undefined;

  constructor(options: MediaMissingOptions) {
    const url = redactUrl(options.url);
    const answer = options.status === undefined ? 'it could not be downloaded' : `HTTP ${options.status}`;
    // In the words of someone who set a wait: a fresh event's file the service had not written
    // yet, an old event's file that is simply missing, or a file not waited for (a wait of 0).
    const waited =
      options.waitedMs > 0
        ? `not there after waiting ${(options.waitedMs / 1000).toFixed(1)} s (the service had not written it yet)`
        : options.old
          ? 'not there (an old event: not waited for)'
          : 'not there, maybe not written yet: it was not waited for (a wait of 0 s)';
    super('MEDIA_MISSING', `The ${options.media} ${url} is ${waited}; last answer: ${answer}`, {
      cause: options.cause,
    });
    this.name = 'MediaMissingError';
    this.media = options.media;
    this.url = url;
    this.waitedMs = options.waitedMs;
    this.status = options.status;
  }

  static override isInstance(error: unknown): error is MediaMissingError {
    return ObservationError.hasMarker(error, marker);
  }
}
