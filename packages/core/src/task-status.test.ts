import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTaskStatus } from './task-status.js';

describe('parseTaskStatus', () => {
  it.each([
    ['operating, normal', 'operating', 'normal'],
    ['operating, slow', 'operating', 'slow'],
    ['operating, disconnected', 'operating', 'disconnected'],
    ['non-operating, paused', 'non-operating', 'paused'],
    ['non-operating, terminated', 'non-operating', 'terminated'],
    ['non-operating, scheduled', 'non-operating', 'scheduled'],
    ['non-operating, finished', 'non-operating', 'finished'],
    ['Operating,Normal', 'operating', 'normal'],
  ])('%s → %s / %s', (status, category, state) => {
    expect(parseTaskStatus(status)).toEqual({ category, state, raw: status });
  });

  it('maps the bare "video" and anything unknown to category unknown', () => {
    expect(parseTaskStatus('video')).toEqual({ category: 'unknown', state: 'video', raw: 'video' });
    expect(parseTaskStatus('maintenance, planned')).toMatchObject({ category: 'unknown' });
    expect(parseTaskStatus('operating,')).toMatchObject({ category: 'unknown' });
    expect(parseTaskStatus('')).toMatchObject({ category: 'unknown', state: '' });
  });

  it('never throws, even on non-strings', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const status = parseTaskStatus(value as string);
        expect(['operating', 'non-operating', 'unknown']).toContain(status.category);
      }),
    );
  });
});
