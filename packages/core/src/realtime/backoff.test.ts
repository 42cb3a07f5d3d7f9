import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  const options = { baseMs: 100, maxMs: 1_000 };

  it('grows the jitter window exponentially and caps it at maxMs', () => {
    const top = () => 0.999999;
    expect(backoffDelay(1, options, top)).toBe(99);
    expect(backoffDelay(2, options, top)).toBe(199);
    expect(backoffDelay(3, options, top)).toBe(399);
    expect(backoffDelay(5, options, top)).toBe(999);
    expect(backoffDelay(500, options, top)).toBe(999);
  });

  it('uses full jitter: anywhere from 0 to the window', () => {
    expect(backoffDelay(4, options, () => 0)).toBe(0);
    const delays = Array.from({ length: 200 }, () => backoffDelay(4, options));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(800);
    expect(new Set(delays).size).toBeGreaterThan(20);
  });
});
