import { AuthError } from '../errors/auth-error.js';
import { HttpError } from '../errors/http-error.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { redactUrl } from '../errors/redact-url.js';
import type { HttpResponse, HttpTransport } from '../ports.js';
import { abortReason, type Clock, type Logger } from '../ports.js';
import { Deadline } from './deadline.js';
import { parseErrorBody } from './error-body.js';
import { parseJsonBody } from './json-body.js';
import { backoffDelay, parseRetryAfter } from './retry-after.js';

export interface RetryOptions {
  /** Tries in total, the first included (1 = no retries). Default 3. */
  attempts?: number;
  /** Base of the exponential backoff. Default 300 ms. */
  baseDelayMs?: number;
  /** Ceiling of one backoff delay. Default 10 s. */
  maxDelayMs?: number;
}

/**
 * Where a request takes its access token (auth/'s TokenProvider). Stated here, so that auth/ may
 * build on http/ (login is an HTTP call) without http/ knowing auth/.
 */
export interface TokenSource {
  /** False for a fixed token: a refused one is final. */
  readonly canRefresh: boolean;
  get(options?: { signal?: AbortSignal }): Promise<string>;
  /** Forgets `token` after the service refused it. */
  invalidate(token: string): void;
}

export interface RequestContext {
  transport: HttpTransport;
  tokens: TokenSource;
  apiUrl: string;
  serviceId: string | undefined;
  timeoutMs: number;
  retry: Required<RetryOptions>;
  clock: Clock;
  logger: Logger;
  random?: () => number;
  /**
   * Aborted by `client.close()` with a CLIENT_CLOSED error: a request still in flight then ends
   * with that error at once, instead of failing later as a network error on a closed pool.
   */
  closing?: AbortSignal;
}

/**
 * The caller's signal joined with the client's close, for a wait between requests (a retry's
 * backoff, a media wait between its looks). A request itself takes the close through its Deadline.
 */
export function requestSignal(ctx: RequestContext, signal: AbortSignal | undefined): AbortSignal | undefined {
  if (!ctx.closing) return signal;
  return signal ? AbortSignal.any([signal, ctx.closing]) : ctx.closing;
}

export type QueryValue = string | number | undefined;

export interface ApiRequest {
  /** Path under the API URL (`/tasks`), or an absolute URL (media). */
  path: string;
  query?: Record<string, QueryValue>;
  signal?: AbortSignal | undefined;
  /** `header`: Bearer + X-Service-Id (REST). `query`: `auth_token` parameter (media). */
  auth?: 'header' | 'query';
  timeoutMs?: number | undefined;
  /**
   * Sees a 2xx JSON body's bytes before they are parsed, and the parse waits for what it returns
   * (a history page counts its rows there, and waits until its reader wants it).
   */
  beforeParse?: ((bytes: Uint8Array) => Promise<void>) | undefined;
}

/**
 * Reads a 2xx body. Runs inside the attempt, so a connection lost while reading is retried like
 * one lost before the answer. `deadline` is the attempt's timeout and abort.
 */
export type BodyReader<T> = (response: HttpResponse, url: string, deadline: Deadline) => Promise<T>;

/** A Retry-After longer than this is not waited for: the error is raised instead. */
const maxRetryAfterMs = 60_000;

function buildUrl(ctx: RequestContext, req: ApiRequest, token: string): string {
  const url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(req.path) ? req.path : `${ctx.apiUrl}${req.path}`);
  for (const [name, value] of Object.entries(req.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  if (req.auth === 'query') url.searchParams.set('auth_token', token);
  return url.toString();
}

/**
 * Sends a GET with auth headers, timeout, abort, re-login after a 401 (once) and retries on
 * network errors, 408, 429 (honouring Retry-After) and 5xx with capped exponential backoff and
 * full jitter. `read` consumes the 2xx body; every failure becomes a core error.
 */
export async function sendGet<T>(ctx: RequestContext, req: ApiRequest, read: BodyReader<T>): Promise<T> {
  const signal = req.signal;
  const closing = ctx.closing;
  const timeoutMs = req.timeoutMs ?? ctx.timeoutMs;
  let attempt = 0;
  let reloggedIn = false;
  for (;;) {
    if (signal?.aborted) throw abortReason(signal);
    if (closing?.aborted) throw abortReason(closing);
    const token = await ctx.tokens.get(signal ? { signal } : {});
    const url = buildUrl(ctx, req, token);
    const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5' };
    if (req.auth !== 'query') {
      headers.authorization = `Bearer ${token}`;
      if (ctx.serviceId) headers['x-service-id'] = ctx.serviceId;
    }
    const deadline = new Deadline(timeoutMs, signal, ctx.clock, closing);
    let response: HttpResponse;
    let result: { value: T } | undefined;
    try {
      response = await ctx.transport.request({ method: 'GET', url, headers, signal: deadline.signal });
      if (response.status >= 200 && response.status < 300)
        result = { value: await read(response, url, deadline) };
    } catch (error) {
      if (ProtocolError.isInstance(error)) {
        deadline.clear();
        throw error;
      }
      deadline.clear();
      const mapped = deadline.mapError(error, 'GET', url);
      if (signal?.aborted || closing?.aborted || attempt + 1 >= ctx.retry.attempts) throw mapped;
      const delay = backoffDelay(attempt, ctx.retry.baseDelayMs, ctx.retry.maxDelayMs, ctx.random);
      ctx.logger.debug('request failed, retrying', {
        url: redactUrl(url),
        attempt: attempt + 1,
        delayMs: delay,
        error: mapped instanceof Error ? mapped.message : String(mapped),
      });
      await ctx.clock.sleep(delay, requestSignal(ctx, signal));
      attempt++;
      continue;
    }

    if (result) return result.value;

    let text = '';
    try {
      text = await response.text();
    } catch {
      // The status is what matters; an unreadable error body is not worth a second failure.
    }
    deadline.clear();
    const parsed = parseErrorBody(text, response.headers['content-type']);
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], ctx.clock.now());
    const httpError = new HttpError({
      status: response.status,
      method: 'GET',
      url,
      body: parsed.body,
      reason: parsed.reason,
      retryAfterMs,
    });
    if (response.status === 401 && ctx.tokens.canRefresh && !reloggedIn) {
      // The token may have been revoked or expired early: log in once more and repeat once.
      reloggedIn = true;
      ctx.tokens.invalidate(token);
      ctx.logger.debug('token refused, logging in again', { url: redactUrl(url) });
      continue;
    }
    if (response.status === 401 || response.status === 403) {
      throw new AuthError(
        `GET ${redactUrl(url)} was refused with HTTP ${response.status}${parsed.reason ? `: ${parsed.reason}` : ''}`,
        { status: response.status, cause: httpError },
      );
    }
    const canRetry =
      httpError.retryable &&
      attempt + 1 < ctx.retry.attempts &&
      (retryAfterMs === undefined || retryAfterMs <= maxRetryAfterMs);
    if (!canRetry) throw httpError;
    const delay =
      retryAfterMs ?? backoffDelay(attempt, ctx.retry.baseDelayMs, ctx.retry.maxDelayMs, ctx.random);
    ctx.logger.debug('retrying after HTTP error', {
      url: redactUrl(url),
      status: response.status,
      attempt: attempt + 1,
      delayMs: delay,
    });
    await ctx.clock.sleep(delay, requestSignal(ctx, signal));
    attempt++;
  }
}

/**
 * Reads a JSON body (the edge: a body that is not JSON becomes a ProtocolError), after the
 * request's `beforeParse`.
 */
async function readJson(
  response: HttpResponse,
  url: string,
  deadline: Deadline,
  beforeParse?: (bytes: Uint8Array) => Promise<void>,
): Promise<unknown> {
  const bytes = await response.bytes();
  deadline.clear();
  if (beforeParse) await beforeParse(bytes);
  try {
    return parseJsonBody(bytes);
  } catch {
    throw new ProtocolError(`GET ${redactUrl(url)} answered with a body that is not JSON`, {
      sample: new TextDecoder().decode(bytes.subarray(0, 800)).slice(0, 200),
    });
  }
}

/** GET and parse the JSON body. */
export function getJson(ctx: RequestContext, req: ApiRequest): Promise<unknown> {
  return sendGet(ctx, req, (response, url, deadline) => readJson(response, url, deadline, req.beforeParse));
}
