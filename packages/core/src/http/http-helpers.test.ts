import { describe, expect, it } from 'vitest';
import { findNamedMaximum, parseErrorBody } from './error-body.js';
import { backoffDelay, parseRetryAfter } from './retry-after.js';

describe('parseErrorBody', () => {
  it('takes JSON detail, FastAPI detail lists, message and error', () => {
    expect(parseErrorBody('{"detail":"Task not found"}', 'application/json').reason).toBe('Task not found');
    expect(
      parseErrorBody(
        '{"detail":[{"loc":["query","limit"],"msg":"Input should be less than or equal to 100"}]}',
        undefined,
      ).reason,
    ).toBe('query.limit: Input should be less than or equal to 100');
    expect(parseErrorBody('{"message":"Bad service id"}', undefined).reason).toBe('Bad service id');
    expect(parseErrorBody('{"error":{"code":7}}', undefined).reason).toBe('{"code":7}');
  });
  it('takes an HTML title, else the text, and keeps empty bodies empty', () => {
    const html = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>';
    expect(parseErrorBody(html, 'text/html').reason).toBe('502 Bad Gateway');
    expect(parseErrorBody('<html><body><h1>Oops <b>down</b></h1></body></html>', undefined).reason).toBe(
      'Oops down',
    );
    expect(parseErrorBody('Service Unavailable\n', 'text/plain').reason).toBe('Service Unavailable');
    expect(parseErrorBody('', undefined)).toEqual({ body: undefined, reason: undefined });
    expect(parseErrorBody('x'.repeat(5000), undefined).reason?.length).toBeLessThan(310);
  });
});

describe('findNamedMaximum', () => {
  it.each([
    ['limit must be <= 100', 100],
    ['query.limit: Input should be less than or equal to 100', 100],
    ['limit may be at most 10000', 10000],
    ['maximum is 100', 100],
    ['limit must be between 1 and 100', 100],
    ['max: 50', 50],
  ])('finds the maximum in %j', (reason, max) => {
    expect(findNamedMaximum(reason)).toBe(max);
  });
  it('finds nothing in unrelated messages', () => {
    expect(findNamedMaximum('Task 100 not found')).toBeUndefined();
    expect(findNamedMaximum(undefined)).toBeUndefined();
  });
});

describe('retry timing', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2024-05-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Wed, 01 May 2024 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Tue, 30 Apr 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
  it('backs off exponentially with full jitter under a cap', () => {
    expect(backoffDelay(0, 100, 1000, () => 0.999)).toBe(99);
    expect(backoffDelay(3, 100, 1000, () => 0.999)).toBe(799);
    expect(backoffDelay(10, 100, 1000, () => 0.999)).toBe(999);
    expect(backoffDelay(50, 100, 1000, () => 0)).toBe(0);
  });
});
