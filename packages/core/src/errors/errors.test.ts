import { describe, expect, it, vi } from 'vitest';
import { AuthError } from './auth-error.js';
import { HttpError } from './http-error.js';
import { NetworkError } from './network-error.js';
import { ObservationError } from './observation-error.js';
import { ProtocolError } from './protocol-error.js';
import { redactUrl } from './redact-url.js';
import { TimeoutError } from './timeout-error.js';
import { ValidationError } from './validation-error.js';

describe('error hierarchy', () => {
  it('gives each error a stable code and a matching isInstance', () => {
    const http = new HttpError({ status: 503, method: 'GET', url: 'http://h/apiserver/tasks' });
    const cases: Array<[ObservationError, string]> = [
      [http, 'HTTP_ERROR'],
      [new AuthError('no', { status: 401 }), 'AUTH_ERROR'],
      [new ValidationError('taskId', '"x"', 'a number'), 'VALIDATION_ERROR'],
      [new NetworkError('GET', 'http://h/', 'ECONNREFUSED'), 'NETWORK_ERROR'],
      [new TimeoutError('GET', 'http://h/', 10), 'TIMEOUT_ERROR'],
      [new ProtocolError('bad'), 'PROTOCOL_ERROR'],
    ];
    for (const [error, code] of cases) {
      expect(error.code).toBe(code);
      expect(ObservationError.isInstance(error)).toBe(true);
      expect(error).toBeInstanceOf(Error);
    }
    expect(HttpError.isInstance(http)).toBe(true);
    expect(AuthError.isInstance(http)).toBe(false);
    // A timeout is a kind of network failure.
    expect(NetworkError.isInstance(new TimeoutError('GET', 'http://h/', 5))).toBe(true);
    expect(TimeoutError.isInstance(new NetworkError('GET', 'http://h/', 'reset'))).toBe(false);
    expect(ObservationError.isInstance(new Error('plain'))).toBe(false);
    expect(ObservationError.isInstance(null)).toBe(false);
    expect(ObservationError.isInstance('HTTP_ERROR')).toBe(false);
  });

  it('recognises errors created by a second loaded copy of the module', async () => {
    vi.resetModules();
    const copy = await import('./http-error.js');
    const base = await import('./observation-error.js');
    expect(copy.HttpError).not.toBe(HttpError);
    const foreign = new copy.HttpError({ status: 404, method: 'GET', url: 'http://h/x' });
    expect(foreign instanceof HttpError).toBe(false);
    expect(HttpError.isInstance(foreign)).toBe(true);
    expect(ObservationError.isInstance(foreign)).toBe(true);
    expect(base.ObservationError.isInstance(new AuthError('x'))).toBe(true);
    expect(AuthError.isInstance(foreign)).toBe(false);
  });

  it('marks 408, 429 and 5xx as retryable, other statuses not', () => {
    const retryable = (status: number) =>
      new HttpError({ status, method: 'GET', url: 'http://h/' }).retryable;
    expect([408, 429, 500, 502, 503, 504].map(retryable)).toEqual([true, true, true, true, true, true]);
    expect([400, 401, 403, 404, 422].map(retryable)).toEqual([false, false, false, false, false]);
  });

  it('redacts token and auth_token in URLs and messages', () => {
    const error = new HttpError({
      status: 500,
      method: 'GET',
      url: 'https://h/media/1.jpg?auth_token=SECRET1&x=1&token=SECRET2',
      reason: 'boom',
    });
    expect(error.url).toBe('https://h/media/1.jpg?auth_token=***&x=1&token=***');
    expect(error.message).toBe(
      'GET https://h/media/1.jpg?auth_token=***&x=1&token=*** failed with HTTP 500: boom',
    );
    expect(new NetworkError('GET', 'ws://h/a?token=abc', 'reset').message).not.toContain('abc');
    expect(redactUrl('/relative?token=abc&b=2')).toBe('/relative?token=***&b=2');
    expect(redactUrl('https://user:pw@h/')).not.toContain('pw');
    expect(redactUrl('https://h/plain?q=1')).toBe('https://h/plain?q=1');
  });

  it('builds validation messages from parameter, given and allowed', () => {
    const error = new ValidationError('limit', 'number -1', 'a whole number of at least 1');
    expect(error.message).toBe('Invalid limit: got number -1; expected a whole number of at least 1');
    expect(error.name).toBe('ValidationError');
  });
});
