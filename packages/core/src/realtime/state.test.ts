import { describe, expect, it } from 'vitest';
import { aggregateState } from './state.js';

describe('aggregateState', () => {
  it('is connecting until the task list is known', () => {
    expect(aggregateState([], false)).toBe('connecting');
  });

  it('lets the most troubled socket decide', () => {
    expect(aggregateState(['open', 'reconnecting', 'backfilling'], true)).toBe('reconnecting');
    expect(aggregateState(['open', 'connecting', 'backfilling'], true)).toBe('connecting');
    expect(aggregateState(['open', 'backfilling'], true)).toBe('backfilling');
    expect(aggregateState([], true)).toBe('open');
  });
});
