/**
 * The HTTP `request` listener: control endpoint, then the API under the prefix with its answer
 * time (responseLatencyMs or delayResponses) and REST faults applied.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerContext } from '../server-context.js';
import { routeApi } from './api-routes.js';
import { handleControl } from './control-route.js';
import { HttpProblem, sendJson, sendProblem } from './http-problem.js';

type Actions = Parameters<typeof handleControl>[2];

export function createRequestHandler(
  ctx: ServerContext,
  actions: Actions,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, res, ctx, actions).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof HttpProblem) sendProblem(res, error);
      else sendJson(res, 500, { detail: 'Internal Server Error' });
    });
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ServerContext,
  actions: Actions,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator.invalid');
  const path = url.pathname;
  if (ctx.options.controlEndpoint && path.startsWith('/__control/')) {
    await handleControl(req, res, actions, decodeURIComponent(path.slice('/__control/'.length)));
    return;
  }
  const { prefix } = ctx.options;
  if (path !== prefix && !path.startsWith(`${prefix}/`)) {
    if (path === '/' && prefix !== '') {
      sendJson(res, 200, { service: 'Observation Service simulator', api: prefix, form: ctx.options.form });
      return;
    }
    throw new HttpProblem(404, 'Not Found');
  }
  ctx.counters.requests++;
  if (path.startsWith('/media/', prefix.length)) ctx.counters.mediaRequests++;
  else {
    // What a client saw fail (and may retry): an answer other than 2xx, or none before the close.
    res.once('close', () => {
      const ok = res.writableFinished && res.statusCode >= 200 && res.statusCode < 300;
      if (!ok) ctx.counters.requestsFailed++;
    });
  }
  const failure = ctx.faults.takeFailure();
  // Drawn for every request, so request n's duration depends only on the seed and n, whether or
  // not delayResponses (a test's fixed delay) overrides it for now.
  const latencyMs = ctx.responseLatency.nextMs();
  const waitMs = ctx.faults.delayMs > 0 ? ctx.faults.delayMs : latencyMs;
  // FaultState's timers, so stop() cancels a wait in progress.
  if (waitMs > 0) await ctx.faults.sleep(waitMs);
  if (failure) {
    // Drain the body so the connection can be reused by keep-alive clients.
    req.resume();
    const headers: Record<string, string> = {};
    if (failure.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.retryAfterSeconds);
    throw new HttpProblem(failure.status, `Simulated failure (HTTP ${failure.status})`, headers);
  }
  await routeApi(req, res, ctx, url, path.slice(prefix.length) || '/');
}
