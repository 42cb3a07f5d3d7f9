import { AuthError } from '../errors/auth-error.js';
import { HttpError } from '../errors/http-error.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { Deadline } from '../http/deadline.js';
import { parseErrorBody } from '../http/error-body.js';
import { parseRetryAfter } from '../http/retry-after.js';
import type { Clock, HttpTransport } from '../ports.js';

export interface LoginRequest {
  transport: HttpTransport;
  apiUrl: string;
  serviceId: string | undefined;
  email: string;
  password: string;
  timeoutMs: number;
  clock: Clock;
  signal?: AbortSignal;
}

/**
 * `POST {apiUrl}/users/token` with `{ email, password }` → the `access_token`. Not retried: the
 * endpoint is rate-limited, and the caller (token provider) decides when to try again.
 */
export async function login(req: LoginRequest): Promise<string> {
  const url = `${req.apiUrl}/users/token`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (req.serviceId) headers['x-service-id'] = req.serviceId;
  const deadline = new Deadline(req.timeoutMs, req.signal, req.clock);
  let status: number;
  let text: string;
  let contentType: string | undefined;
  let retryAfter: string | undefined;
  try {
    const response = await req.transport.request({
      method: 'POST',
      url,
      headers,
      body: JSON.stringify({ email: req.email, password: req.password }),
      signal: deadline.signal,
    });
    status = response.status;
    contentType = response.headers['content-type'];
    retryAfter = response.headers['retry-after'];
    text = await response.text();
  } catch (error) {
    throw deadline.mapError(error, 'POST', url);
  } finally {
    deadline.clear();
  }

  if (status >= 200 && status < 300) {
    let token: unknown;
    try {
      token = (JSON.parse(text) as { access_token?: unknown }).access_token;
    } catch {
      token = undefined;
    }
    if (typeof token !== 'string' || token === '') {
      // The body may hold a token in another field: never put it in the message.
      throw new ProtocolError(`POST ${url} answered ${status} without an access_token string`);
    }
    return token;
  }
  const parsed = parseErrorBody(text, contentType);
  const httpError = new HttpError({
    status,
    method: 'POST',
    url,
    // FastAPI-style 422 bodies echo the submitted fields (`input`), the password among them:
    // keep only the reason, never the body.
    reason: parsed.reason,
    retryAfterMs: parseRetryAfter(retryAfter, req.clock.now()),
  });
  if (status === 400 || status === 401 || status === 403 || status === 422) {
    throw new AuthError(`Login refused with HTTP ${status}${parsed.reason ? `: ${parsed.reason}` : ''}`, {
      status,
      cause: httpError,
    });
  }
  throw httpError;
}
