/** The endpoints of the spec under the prefix: history, event types, locations, tasks, login, media. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basicJson, extendedJson } from '../events/payload-json.js';
import type { ServerContext } from '../server-context.js';
import type { Form } from '../types.js';
import { toListItem } from '../world/world-state.js';
import { pageWithinBytes, rowsWithinBytesAtMost } from './history-page-bytes.js';
import { HttpProblem, notFound, sendJson, sendJsonText } from './http-problem.js';
import { handleLogin } from './login-route.js';
import { serveClip, serveSnapshot } from './media-routes.js';
import { applyLimitMaximum, ParamReader } from './query-params.js';
import { authenticate } from './rest-auth.js';

/** History maximum per form (spec section 8). */
export const HISTORY_LIMIT_MAX: Record<Form, number> = { basic: 10000, extended: 100 };
/** The spec does not show a maximum for locations and tasks; FastAPI services commonly use 1000. */
export const LIST_LIMIT_MAX = 1000;

interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: ServerContext,
    url: URL,
    params: string[],
  ): void | Promise<void>;
}

const ROUTES: Route[] = [
  { method: 'POST', pattern: /^\/users\/token$/, handle: (req, res, ctx) => handleLogin(req, res, ctx) },
  { method: 'GET', pattern: /^\/events\/history$/, handle: history },
  { method: 'GET', pattern: /^\/events\/types\/([^/]+)$/, handle: eventType },
  { method: 'GET', pattern: /^\/locations$/, handle: locations },
  { method: 'GET', pattern: /^\/locations\/([^/]+)$/, handle: location },
  { method: 'GET', pattern: /^\/tasks$/, handle: tasks },
  { method: 'GET', pattern: /^\/tasks\/([^/]+)$/, handle: task },
  {
    method: 'GET',
    pattern: /^\/media\/snapshots\/([^/]+)\.png$/,
    handle: (req, res, ctx, url, p) => serveSnapshot(req, res, ctx, url, p[0] ?? ''),
  },
  {
    method: 'GET',
    pattern: /^\/media\/clips\/([^/]+)\.mp4$/,
    handle: (req, res, ctx, url, p) => serveClip(req, res, ctx, url, p[0] ?? ''),
  },
];

/** Routes a request whose path is below the prefix (`apiPath` starts with '/'). */
export async function routeApi(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ServerContext,
  url: URL,
  apiPath: string,
): Promise<void> {
  const path = apiPath.length > 1 ? apiPath.replace(/\/$/, '') : apiPath;
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (method !== route.method) {
      allowed.push(route.method);
      continue;
    }
    await route.handle(req, res, ctx, url, match.slice(1).map(decodeURIComponent));
    return;
  }
  if (allowed.length > 0) throw new HttpProblem(405, 'Method Not Allowed', { allow: allowed.join(', ') });
  throw notFound();
}

function history(req: IncomingMessage, res: ServerResponse, ctx: ServerContext, url: URL): void {
  const form = authenticate(req, ctx);
  const params = new ParamReader(url.searchParams);
  const startMs = params.time('start_time');
  const endMs = params.time('end_time');
  const eventName = params.string('event_name');
  const taskId = params.int('task_id');
  // The older (basic) generation does not know the extended filters: like any unknown parameter they are ignored.
  const eventId = form === 'extended' ? params.int('event_id') : undefined;
  const locationId = form === 'extended' ? params.int('location_id') : undefined;
  const cameraId = form === 'extended' ? params.int('camera_id') : undefined;
  const ids = form === 'extended' ? params.intList('ids') : undefined;
  const offset = params.int('offset', { min: 0 }) ?? 0;
  const requested = params.int('limit', { min: 0 }) ?? 100;
  params.finish();
  const allowed = applyLimitMaximum(requested, HISTORY_LIMIT_MAX[form], ctx.options.overLimit);
  // Like deployments whose real cap is below the documented maximum: no error, no header.
  const { historyPageCap: cap, historyPageBytes: budget } = ctx.options;
  let limit = cap > 0 ? Math.min(allowed, cap) : allowed;
  if (budget > 0) limit = Math.min(limit, rowsWithinBytesAtMost(budget));
  const events = ctx.log.query({
    startMs,
    endMs,
    eventName,
    taskId,
    eventId,
    locationId,
    cameraId,
    ids,
    offset,
    limit,
    order: ctx.options.historyOrder,
  });
  // Pages of 10,000 (basic) are common in bulk exports: print them with the pump's serializer.
  const serialize = form === 'basic' ? basicJson : extendedJson;
  const numeric = ctx.options.numericTimestamps;
  const rows = events.map((event) => serialize(event, numeric));
  sendJsonText(res, 200, budget > 0 ? pageWithinBytes(rows, budget) : `[${rows.join(',')}]`);
}

function pathId(raw: string | undefined, name: string): number {
  const params = new ParamReader(new Map([[name, raw ?? '']]), 'path');
  const id = params.int(name);
  params.finish();
  return id as number;
}

function eventType(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ServerContext,
  _url: URL,
  p: string[],
): void {
  authenticate(req, ctx);
  const id = pathId(p[0], 'event_id');
  const type = ctx.world.eventType(id);
  if (!type) throw notFound('Event type not found');
  sendJson(res, 200, type);
}

function locations(req: IncomingMessage, res: ServerResponse, ctx: ServerContext, url: URL): void {
  const form = authenticate(req, ctx);
  const params = new ParamReader(url.searchParams);
  const organizationId = params.int('organization_id');
  const ids = form === 'extended' ? params.intList('ids') : undefined;
  const offset = params.int('offset', { min: 0 }) ?? 0;
  const requested = params.int('limit', { min: 0 }) ?? 100;
  params.finish();
  const limit = applyLimitMaximum(requested, LIST_LIMIT_MAX, ctx.options.overLimit);
  const list = ctx.world.locations.filter(
    (item) =>
      (organizationId === undefined || item.organization_id === organizationId) &&
      (!ids || ids.includes(item.id)),
  );
  sendJson(res, 200, list.slice(offset, offset + limit));
}

function location(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ServerContext,
  _url: URL,
  p: string[],
): void {
  authenticate(req, ctx);
  const found = ctx.world.location(pathId(p[0], 'location_id'));
  if (!found) throw notFound('Location not found');
  sendJson(res, 200, found);
}

function tasks(req: IncomingMessage, res: ServerResponse, ctx: ServerContext, url: URL): void {
  const form = authenticate(req, ctx);
  const params = new ParamReader(url.searchParams);
  const locationId = params.int('location_id');
  const cameraId = params.int('camera_id');
  const ids = form === 'extended' ? params.intList('ids') : undefined;
  const offset = params.int('offset', { min: 0 }) ?? 0;
  const requested = params.int('limit', { min: 0 }) ?? 100;
  params.finish();
  const limit = applyLimitMaximum(requested, LIST_LIMIT_MAX, ctx.options.overLimit);
  const list = ctx.world
    .tasks()
    .filter(
      (item) =>
        (locationId === undefined || item.location_id === locationId) &&
        (cameraId === undefined || item.camera_id === cameraId) &&
        (!ids || ids.includes(item.id)),
    );
  sendJson(res, 200, list.slice(offset, offset + limit).map(toListItem));
}

function task(req: IncomingMessage, res: ServerResponse, ctx: ServerContext, _url: URL, p: string[]): void {
  authenticate(req, ctx);
  const found = ctx.world.task(pathId(p[0], 'task_id'));
  if (!found) throw notFound('Task not found');
  sendJson(res, 200, found);
}
