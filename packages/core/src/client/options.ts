import type { AuthOptions } from '../auth/token-provider.js';
import type { ClientForm } from '../context/form-state.js';

export type { ClientForm } from '../context/form-state.js';

import { ValidationError } from '../errors/validation-error.js';
import type { ProxyOption } from '../http/proxy.js';
import type { RetryOptions } from '../http/request.js';
import type { TlsOptions } from '../http/tls-options.js';
import type { Clock, HttpTransport, Logger, WebSocketConstructor } from '../ports.js';
import { describeValue } from '../validation/describe-value.js';

/** Options of `createClient`. Only `url` and `auth` are required. */
export interface ClientOptions {
  /** The service address as a user would paste it: site URL, API URL (`…/apiserver`) or ws(s) URL. */
  url: string;
  /** Overrides the derived WebSocket base (another host or port for realtime). */
  wsUrl?: string;
  /** Workspace id sent as `X-Service-Id` and in the extended realtime path. */
  serviceId?: string;
  /** Payload/endpoint generation of the deployment. Default `auto`. */
  form?: ClientForm;
  /** A fixed access token, email + password to log in (and refresh) with, or a host's `getToken`. */
  auth: AuthOptions;
  /** Per-attempt timeout of a request in ms (until the whole body is read; for video until headers). Default 30 s. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Origins (besides the service's own) that may receive the token on media URLs, e.g. a CDN. */
  trustedMediaOrigins?: string[];
  /**
   * TLS of the default transport, media downloads and the realtime socket: extra CA, client
   * certificate, SNI name. Verification is on unless `rejectUnauthorized: false` is given.
   */
  tls?: TlsOptions;
  /** HTTP(S) proxy of the default transport and the realtime socket: `'env'` or `{ url, noProxy? }`. Default: none. */
  proxy?: ProxyOption;
  /** HTTP port; default: undici with a keep-alive pool. */
  transport?: HttpTransport;
  logger?: Partial<Logger>;
  /** WebSocket constructor for realtime; default: `ws`. */
  WebSocket?: WebSocketConstructor;
  clock?: Clock;
}

export interface ResolvedRetry {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

function nonNegative(value: unknown, parameter: string, allowed: string, min = 0): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new ValidationError(parameter, describeValue(value), allowed);
  }
  return value;
}

export function resolveRetry(retry: RetryOptions | undefined): ResolvedRetry {
  const attempts = retry?.attempts ?? 3;
  if (!Number.isSafeInteger(attempts) || attempts < 1 || attempts > 20) {
    throw new ValidationError(
      'retry.attempts',
      describeValue(attempts),
      'a whole number from 1 to 20 (1 = no retries)',
    );
  }
  return {
    attempts,
    baseDelayMs: nonNegative(retry?.baseDelayMs ?? 300, 'retry.baseDelayMs', 'a number of ms ≥ 0'),
    maxDelayMs: nonNegative(retry?.maxDelayMs ?? 10_000, 'retry.maxDelayMs', 'a number of ms ≥ 0'),
  };
}

export function checkAuth(auth: unknown): AuthOptions {
  const allowed = '{ token } or { email, password } with non-empty strings, or { getToken } with a function';
  if (!auth || typeof auth !== 'object') throw new ValidationError('auth', describeValue(auth), allowed);
  const record = auth as Record<string, unknown>;
  if ('token' in record) {
    if (typeof record.token !== 'string' || record.token.trim() === '') {
      throw new ValidationError(
        'auth.token',
        record.token === '' ? 'an empty string' : 'a non-string or blank value',
        allowed,
      );
    }
    return { token: record.token.trim() };
  }
  if ('getToken' in record) {
    const getToken = record.getToken;
    if (typeof getToken !== 'function') {
      throw new ValidationError('auth.getToken', describeValue(getToken), allowed);
    }
    // Called on the host's own object, as the host wrote it.
    return { getToken: (request) => Promise.resolve(getToken.call(record, request)) };
  }
  if (typeof record.email !== 'string' || record.email.trim() === '') {
    throw new ValidationError('auth.email', describeValue(record.email), allowed);
  }
  if (typeof record.password !== 'string' || record.password === '') {
    // Never echo a password, not even a wrong-typed one.
    throw new ValidationError('auth.password', describeValue(record.password, true), allowed);
  }
  return { email: record.email.trim(), password: record.password };
}

export function checkForm(form: unknown): ClientForm {
  if (form === undefined) return 'auto';
  if (form === 'auto' || form === 'basic' || form === 'extended') return form;
  throw new ValidationError('form', describeValue(form), '"auto", "basic" or "extended"');
}

export function checkServiceId(serviceId: unknown): string | undefined {
  if (serviceId === undefined || serviceId === null || serviceId === '') return undefined;
  // It goes into a path segment and a header: keep it to safe characters.
  if (typeof serviceId === 'string' && /^[A-Za-z0-9._~-]{1,200}$/.test(serviceId.trim()))
    return serviceId.trim();
  throw new ValidationError(
    'serviceId',
    describeValue(serviceId),
    'letters, digits, ".", "_", "~" or "-" (as shown in the product UI)',
  );
}

export function checkTimeout(timeoutMs: unknown): number {
  if (timeoutMs === undefined) return 30_000;
  return nonNegative(timeoutMs, 'timeoutMs', 'a number of ms > 0', 1);
}
