// What a media download takes and gives. Apart from media/download.ts, so that annotate/, which
// draws on a downloaded snapshot through a download function it is handed, needs nothing of media/.
import type { Readable } from 'node:stream';
import type { ObservationEvent } from './model/observation-event.js';

export type MediaKind = 'image' | 'video';

/** A downloaded snapshot (bytes) or clip (stream). */
export interface MediaDownload<Data extends Buffer | Readable = Buffer | Readable> {
  /** Buffer for images; a Readable for videos (consume or destroy it). */
  data: Data;
  contentType: string;
  /** Bytes, from Content-Length for streams (undefined when the server did not say). */
  size?: number;
  fileName: string;
}

export interface DownloadOptions {
  signal?: AbortSignal;
  /** Per-attempt timeout; for videos it covers the time until the headers arrive. */
  timeoutMs?: number;
  /** Refuse images larger than this many bytes. Default 64 MiB. */
  maxBytes?: number;
  /**
   * How long a fresh event's file may take to appear, in ms: "not there yet" answers (404, 503
   * while being written, ...) are retried with backoff until then, counted from the event's time
   * (or `receivedAt`, when later). Default 10000 for a snapshot, 120000 for a clip (written only
   * after the event's recording ends); 0 = one attempt. An event older than its wait is not
   * waited for, nor a bare URL unless `waitMs` is given. Running out, or an old event's 404,
   * fails with a MediaMissingError (media, redacted URL, how long it waited).
   */
  waitMs?: number;
  /** When the host received the event (ms since the epoch): a late-published event is fresh from then. */
  receivedAt?: number;
}

/** What `download` accepts: a normalized event, a raw event or a URL. */
export type MediaSource = string | Pick<ObservationEvent, 'imageUrl' | 'videoUrl'> | Record<string, unknown>;
