/**
 * Media behind `image_url` / `video_url`: authenticated by the `auth_token` query parameter (a
 * Bearer header works too). Snapshots are PNGs drawn from the event's boxes; every clip is the
 * same short MP4 asset, with Range support so players and resumable downloads work.
 *
 * A live event's files exist only once written (`mediaDelay`, or an emit override): before that
 * the answer is the same 404 as for an id that does not exist, as from an object store or an
 * NVR, so a client cannot tell "not yet" from "never"; in the last `busyMs` before the file is
 * complete it is 503 with Retry-After.
 *
 * Under `media: 'none'` no file exists (events carry empty URLs): every media URL is 404. Under
 * 'shared' only the per-task URLs events carry exist (`task-<id>`: a frame of the task's camera
 * without boxes, and the clip), always complete, as a camera's "latest" files; per-id URLs are 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerContext } from '../server-context.js';
import { HttpProblem, notFound } from './http-problem.js';
import { bearerToken, requireToken } from './rest-auth.js';

function mediaAuth(req: IncomingMessage, ctx: ServerContext, url: URL): void {
  requireToken(ctx, url.searchParams.get('auth_token') ?? bearerToken(req));
}

/** The record id a per-event media URL names, when events have files of their own. */
function recordId(ctx: ServerContext, raw: string): number | undefined {
  if (ctx.options.media !== 'unique') return undefined;
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** The task a shared media URL names (`task-<id>`), when events share their task's files. */
function sharedTask(ctx: ServerContext, raw: string): number | undefined {
  if (ctx.options.media !== 'shared') return undefined;
  const match = /^task-(\d+)$/.exec(raw);
  if (!match) return undefined;
  const id = Number(match[1]);
  return ctx.world.knownTask(id) ? id : undefined;
}

function missing(ctx: ServerContext, detail: string): HttpProblem {
  ctx.counters.mediaNotFound++;
  return notFound(detail);
}

/** Throws the answer of a file not written yet at `readyAtMs` (epoch ms; Infinity = never). */
function requireWritten(ctx: ServerContext, readyAtMs: number, detail: string): void {
  const waitMs = readyAtMs - Date.now();
  if (waitMs <= 0) return;
  if (waitMs <= ctx.options.mediaDelay.busyMs) {
    ctx.counters.mediaBusy++;
    throw new HttpProblem(503, 'The file is being written', {
      'retry-after': String(Math.ceil(waitMs / 1000)),
    });
  }
  throw missing(ctx, detail);
}

export function serveSnapshot(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ServerContext,
  url: URL,
  raw: string,
): void {
  mediaAuth(req, ctx, url);
  const taskId = sharedTask(ctx, raw);
  const id = recordId(ctx, raw);
  const event = id === undefined ? undefined : ctx.log.record(id);
  if (!event && taskId === undefined) throw missing(ctx, 'Snapshot not found');
  if (event) requireWritten(ctx, ctx.media.readyAt(event.id).snapshotAtMs, 'Snapshot not found');
  const image = event ? ctx.snapshots.snapshot(event) : ctx.snapshots.frame();
  res.writeHead(200, {
    'content-type': image.contentType,
    'content-length': image.data.length,
    'cache-control': 'private, max-age=3600',
    'content-disposition': `inline; filename="${event ? `event-${event.id}` : `task-${taskId}`}.${image.extension}"`,
  });
  res.end(req.method === 'HEAD' ? undefined : image.data);
}

export function serveClip(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ServerContext,
  url: URL,
  raw: string,
): void {
  mediaAuth(req, ctx, url);
  const taskId = sharedTask(ctx, raw);
  const id = recordId(ctx, raw);
  const known = id !== undefined && ctx.log.has(id);
  if (!known && taskId === undefined) throw missing(ctx, 'Clip not found');
  if (known) requireWritten(ctx, ctx.media.readyAt(id).clipAtMs, 'Clip not found');
  const clip = ctx.clip;
  const headers: Record<string, string | number> = {
    'content-type': 'video/mp4',
    'accept-ranges': 'bytes',
    'cache-control': 'private, max-age=3600',
    'content-disposition': `inline; filename="${known ? `event-${id}` : `task-${taskId}`}.mp4"`,
  };
  const range = parseRange(req.headers.range, clip.length);
  if (range === 'unsatisfiable') {
    throw new HttpProblem(416, 'Range Not Satisfiable', { 'content-range': `bytes */${clip.length}` });
  }
  const body = range ? clip.subarray(range.start, range.end + 1) : clip;
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${clip.length}`;
  headers['content-length'] = body.length;
  res.writeHead(range ? 206 : 200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** One `bytes=` range (start-end, start-, or -suffix); other shapes are ignored like many servers do. */
function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
