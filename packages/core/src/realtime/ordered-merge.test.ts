import { describe, expect, it } from 'vitest';
import { makeEvent } from './__tests__/make-event.js';
import { historyDirection, mergeCatchUp, sortHistory } from './ordered-merge.js';

const item = (second: number, id?: number, tag = '') => ({
  event: makeEvent({ second, ...(id === undefined ? {} : { id }), image: `${second}-${id ?? tag}` }),
  tag,
});
const seconds = (items: { event: { occurredAt: Date } }[]) =>
  items.map((entry) => entry.event.occurredAt.getUTCSeconds());

describe('historyDirection', () => {
  it('reads the direction from timestamps', () => {
    expect(historyDirection([{ time: 1 }, { time: 2 }, { time: 2 }])).toBe('asc');
    expect(historyDirection([{ time: 3 }, { time: 2 }, { time: 2 }, { time: 1 }])).toBe('desc');
  });

  it('reads it from events seen live when every event shares one second', () => {
    const page = [{ time: 1 }, { known: 2 }, { time: 1 }, { known: 1 }];
    expect(historyDirection(page)).toBe('desc');
    expect(historyDirection([...page].reverse())).toBe('asc');
  });

  it('has no answer without evidence', () => {
    expect(historyDirection([{ time: 1 }, { time: 1 }, { known: 5 }])).toBeUndefined();
    expect(historyDirection([])).toBeUndefined();
  });
});

describe('sortHistory', () => {
  it('sorts by time, then record id', () => {
    const sorted = sortHistory([item(3, 9), item(1, 2), item(3, 7), item(2, 5), item(1, 1)], 'asc');
    expect(sorted.map((entry) => entry.event.id)).toEqual([1, 2, 5, 7, 9]);
  });

  it('keeps the server order within a second when there are no ids (ascending pages)', () => {
    const sorted = sortHistory(
      [item(1, undefined, 'a'), item(1, undefined, 'b'), item(2, undefined, 'c')],
      'asc',
    );
    expect(sorted.map((entry) => entry.tag)).toEqual(['a', 'b', 'c']);
  });

  it('reverses newest-first pages before sorting, so same-second events keep their real order', () => {
    // Server order newest-first: c (2 s), b, a (1 s); a happened before b.
    const sorted = sortHistory(
      [item(2, undefined, 'c'), item(1, undefined, 'b'), item(1, undefined, 'a')],
      'desc',
    );
    expect(sorted.map((entry) => entry.tag)).toEqual(['a', 'b', 'c']);
  });

  it('does not change its input', () => {
    const input = [item(2), item(1)];
    sortHistory(input, 'desc');
    expect(seconds(input)).toEqual([2, 1]);
  });
});

describe('mergeCatchUp', () => {
  it('puts live events that arrived during catch-up in time order, history first on ties', () => {
    const history = [item(1, undefined, 'h1'), item(2, undefined, 'h2')];
    const pending = [item(2, undefined, 'l2'), item(3, undefined, 'l3'), item(1, undefined, 'l1')];
    expect(mergeCatchUp(history, pending).map((entry) => entry.tag)).toEqual(['h1', 'l1', 'h2', 'l2', 'l3']);
  });

  it('returns history as is when nothing is pending', () => {
    const history = [item(1)];
    expect(mergeCatchUp(history, [])).toBe(history);
  });
});
