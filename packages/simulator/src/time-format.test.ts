import { describe, expect, it } from 'vitest';
import { formatTimestamp, parseQueryTime } from './time-format.js';

describe('time formats', () => {
  it('formats the spec shape YYYY-MM-DDThh:mm:ssZ', () => {
    expect(formatTimestamp(Date.UTC(2024, 4, 1, 8, 30, 5) / 1000)).toBe('2024-05-01T08:30:05Z');
  });

  it.each([
    ['2024-05-01T08:30:05', Date.UTC(2024, 4, 1, 8, 30, 5)],
    ['2024-05-01T08:30:05Z', Date.UTC(2024, 4, 1, 8, 30, 5)],
    ['2024-05-01T10:30:05+02:00', Date.UTC(2024, 4, 1, 8, 30, 5)],
    ['2024-05-01T08:30:05.250Z', Date.UTC(2024, 4, 1, 8, 30, 5, 250)],
    ['2024-05-01 08:30', Date.UTC(2024, 4, 1, 8, 30)],
    ['2024-05-01', Date.UTC(2024, 4, 1)],
  ])('parses %s', (text, expected) => {
    expect(parseQueryTime(text)).toBe(expected);
  });

  it.each(['yesterday', '2024-02-30T00:00:00', '2024-05-01T25:00:00', '1714550000', '2024-5-1'])(
    'rejects %s',
    (text) => {
      expect(parseQueryTime(text)).toBeUndefined();
    },
  );
});
