import { describe, expect, it } from 'vitest';
import { pacedLatencies } from './paced-ids.ts';

const paced = { ids: [11, 12, 13, 14], sentAt: [100, 101, 102, 103] };

describe('pacedLatencies (P3)', () => {
  it('gives each paced event its latency, other events aside', () => {
    const handled = { ids: [7, 11, 12, undefined, 13, 14], times: [1, 105, 103, 2, 110, 104] };
    expect(pacedLatencies(paced, handled, 'P3')).toEqual([5, 2, 8, 1]);
  });

  it('fails on one paced event lost and another delivered twice, though the count matches', () => {
    const handled = { ids: [11, 12, 12, 14], times: [105, 103, 104, 104] };
    expect(() => pacedLatencies(paced, handled, 'P3')).toThrow(
      'P3: of 4 paced events 1 never arrived (13) and 1 arrived more than once (12)',
    );
  });

  it('fails on one lost alone and on one repeated alone', () => {
    expect(() => pacedLatencies(paced, { ids: [11, 12, 14], times: [1, 2, 3] }, 'P3')).toThrow(
      '1 never arrived (13)',
    );
    expect(() => pacedLatencies(paced, { ids: [11, 12, 13, 14, 11], times: [1, 2, 3, 4, 5] }, 'P3')).toThrow(
      '1 arrived more than once (11)',
    );
  });
});
