import { describe, expect, it } from 'vitest';
import { parseRange } from '../src/lib/byte-range.js';

describe('Range header of a clip request', () => {
  it('reads the ranges a browser sends when it seeks', () => {
    expect(parseRange('bytes=0-', 1000)).toEqual({ start: 0, end: 999 });
    expect(parseRange('bytes=100-199', 1000)).toEqual({ start: 100, end: 199 });
    // An end past the file is cut to it; the last N bytes.
    expect(parseRange('bytes=900-5000', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=-200', 1000)).toEqual({ start: 800, end: 999 });
    expect(parseRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
    // Several ranges: the first one (browsers ask for one when seeking).
    expect(parseRange('bytes=0-9, 20-29', 1000)).toEqual({ start: 0, end: 9 });
  });

  it('a range past the end is unsatisfiable (416); no header or a malformed one means the whole file', () => {
    expect(parseRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 1000)).toBe('unsatisfiable');
    expect(parseRange(undefined, 1000)).toBeUndefined();
    expect(parseRange('items=0-9', 1000)).toBeUndefined();
    expect(parseRange('bytes=9-3', 1000)).toBeUndefined();
    expect(parseRange('bytes=-', 1000)).toBeUndefined();
    expect(parseRange(['bytes=0-1'], 1000)).toBeUndefined();
  });
});
