import type { Readable } from 'node:stream';
import type { ClientCore } from '../context/client-core.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { requestSignal, sendGet } from '../http/request.js';
import type { DownloadOptions, MediaDownload, MediaKind, MediaSource } from '../media-download.js';
import { describeValue } from '../validation/describe-value.js';
import { chooseFileName } from './file-name.js';
import { checkMediaWait, defaultMediaWaitMs, eventTimeMs, untilMediaAppears } from './media-wait.js';
import { checkMediaUrl } from './signed-url.js';

const defaultMaxBytes = 64 * 1024 * 1024;

function pickUrl(source: MediaSource, kind: MediaKind): { url: unknown; fallbackName: string } {
  if (typeof source === 'string') return { url: source, fallbackName: kind };
  if (!source || typeof source !== 'object') return { url: undefined, fallbackName: kind };
  const record = source as Record<string, unknown>;
  const url =
    kind === 'image' ? (record.imageUrl ?? record.image_url) : (record.videoUrl ?? record.video_url);
  const id = record.id;
  const taskId = record.taskId ?? record.task_id;
  const timestamp = record.timestamp;
  const stem =
    typeof id === 'number'
      ? `event-${id}`
      : typeof taskId === 'number' && typeof timestamp === 'string'
        ? `task-${taskId}-${timestamp.replace(/[:]/g, '-')}`
        : 'event';
  return { url, fallbackName: `${stem}-${kind}` };
}

export async function download(
  core: ClientCore,
  source: MediaSource,
  kind: MediaKind,
  options: DownloadOptions = {},
): Promise<MediaDownload> {
  core.assertOpen();
  if (kind !== 'image' && kind !== 'video') {
    throw new ValidationError('kind', describeValue(kind), '"image" or "video"');
  }
  const { url, fallbackName } = pickUrl(source, kind);
  if (url === undefined) {
    throw new ValidationError(
      kind === 'image' ? 'imageUrl' : 'videoUrl',
      'an event without it',
      `an event that has ${kind === 'image' ? 'an image' : 'a video'} URL, or the URL itself`,
    );
  }
  const checked = checkMediaUrl(core, url, kind === 'image' ? 'imageUrl' : 'videoUrl');
  const maxBytes = options.maxBytes ?? defaultMaxBytes;
  const media = kind === 'image' ? 'snapshot' : 'clip';
  const occurred = eventTimeMs(source);
  const receivedAt = options.receivedAt;
  const freshFromMs =
    occurred === undefined
      ? receivedAt
      : receivedAt === undefined
        ? occurred
        : Math.max(occurred, receivedAt);
  // A bare URL says nothing of its event's age: waited for only when the caller asks for a wait.
  const waitMs =
    freshFromMs === undefined && options.waitMs === undefined
      ? 0
      : checkMediaWait(options.waitMs, 'waitMs', defaultMediaWaitMs[media]);
  const wait = { media, url: checked.toString(), waitMs, freshFromMs, clock: core.clock } as const;
  // The wait between looks ends with the client's close as a request does.
  const signal = requestSignal(core.http, options.signal);
  return untilMediaAppears(signal ? { ...wait, signal } : wait, () =>
    fetchOnce(core, checked, kind, fallbackName, maxBytes, options),
  );
}

/** One GET of the file: bytes for an image, a stream for a clip. */
function fetchOnce(
  core: ClientCore,
  checked: URL,
  kind: MediaKind,
  fallbackName: string,
  maxBytes: number,
  options: DownloadOptions,
): Promise<MediaDownload> {
  return sendGet(
    core.http,
    { path: checked.toString(), auth: 'query', signal: options.signal, timeoutMs: options.timeoutMs },
    async (response, _url, deadline) => {
      const contentType = response.headers['content-type'] ?? 'application/octet-stream';
      const lengthHeader = response.headers['content-length'];
      const declared =
        lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
      const fileName = chooseFileName(
        checked,
        contentType,
        response.headers['content-disposition'],
        fallbackName,
      );
      if (kind === 'video') {
        // The timeout guards the wait for an answer; a long clip may then take as long as it takes.
        deadline.stopTimer();
        const stream = response.stream();
        stream.once('close', () => deadline.clear());
        const result: MediaDownload<Readable> = { data: stream, contentType, fileName };
        if (declared !== undefined) result.size = declared;
        return result;
      }
      if (declared !== undefined && declared > maxBytes) {
        await response.discard();
        deadline.clear();
        throw new ProtocolError(`the image is ${declared} bytes, more than maxBytes (${maxBytes})`);
      }
      const bytes = await response.bytes();
      deadline.clear();
      if (bytes.byteLength > maxBytes) {
        throw new ProtocolError(`the image is ${bytes.byteLength} bytes, more than maxBytes (${maxBytes})`);
      }
      const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return { data, contentType, size: data.byteLength, fileName } satisfies MediaDownload<Buffer>;
    },
  );
}
