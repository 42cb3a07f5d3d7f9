import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../model/task.js';
import { compareTaskStatuses, currentTaskStatuses } from './task-status-record.js';

const at = new Date('2024-05-01T00:00:00Z');

function task(id: number, status: string, name = `Task ${id}`): TaskSummary {
  return {
    id,
    name,
    status,
    scheduler: '24/7',
    events: [],
    location_id: 1,
    camera_id: 1,
    camera_rtsp: 'rtsp://user:secret@cam',
  };
}

/** What a host would store and load again: the record through JSON. */
const stored = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('compareTaskStatuses', () => {
  it('without a record only sets the baseline, keeping name and raw status and nothing else', () => {
    for (const kept of [undefined, null, 'garbage', [1, 2]]) {
      const first = compareTaskStatuses(kept, [task(2, 'video'), task(1, 'operating, normal')], at);
      expect(first.baseline).toBe(true);
      expect(first.events).toEqual([]);
      expect(first.record).toEqual({
        '1': { name: 'Task 1', status: 'operating, normal' },
        '2': { name: 'Task 2', status: 'video' },
      });
    }
    expect(JSON.stringify(compareTaskStatuses(undefined, [task(1, 'video')], at).record)).not.toContain(
      'secret',
    );
  });

  it('reports what changed since the stored record: transitions, additions, removals, by task id', () => {
    const { record } = compareTaskStatuses(
      undefined,
      [task(1, 'operating, normal'), task(2, 'operating, slow'), task(3, 'non-operating, paused')],
      at,
    );
    const later = new Date('2024-05-01T01:00:00Z');
    const next = compareTaskStatuses(
      stored(record),
      [task(4, 'operating, normal', 'Dock'), task(2, 'Operating,Slow'), task(1, 'operating, disconnected')],
      later,
    );
    expect(next.baseline).toBe(false);
    expect(
      next.events.map((e) => [e.type, e.taskId, e.previous?.raw ?? null, e.current?.raw ?? null]),
    ).toEqual([
      ['changed', 1, 'operating, normal', 'operating, disconnected'],
      ['removed', 3, 'non-operating, paused', null],
      ['added', 4, null, 'operating, normal'],
    ]);
    // A removed task is reported with what was kept of it.
    expect(next.events[1]?.task).toEqual({ id: 3, name: 'Task 3', status: 'non-operating, paused' });
    expect(next.events[1]?.at).toBe(later);
    expect(Object.keys(next.record).sort()).toEqual(['1', '2', '4']);
    // Nothing new: nothing reported.
    const again = compareTaskStatuses(
      stored(next.record),
      [task(4, 'operating, normal', 'Dock'), task(2, 'operating, slow'), task(1, 'operating, disconnected')],
      later,
    );
    expect(again.events).toEqual([]);
  });

  it('skips entries of a record it cannot read, and an empty record means every task is new', () => {
    const kept = {
      '1': { name: 'Task 1', status: 'operating, normal' },
      x: {},
      '2': { status: 5 },
      '-3': {},
    };
    const { events, baseline } = compareTaskStatuses(
      kept,
      [task(1, 'operating, normal'), task(2, 'video')],
      at,
    );
    expect(baseline).toBe(false);
    expect(events.map((e) => [e.type, e.taskId])).toEqual([['added', 2]]);
    expect(compareTaskStatuses({}, [task(7, 'video')], at).events.map((e) => e.type)).toEqual(['added']);
  });
});

describe('currentTaskStatuses', () => {
  it('reports every listed task as initial, parsed, by id', () => {
    const events = currentTaskStatuses([task(2, 'melting'), task(1, 'operating, disconnected')], at);
    expect(events.map((e) => [e.type, e.taskId, e.current?.category, e.current?.state])).toEqual([
      ['initial', 1, 'operating', 'disconnected'],
      ['initial', 2, 'unknown', 'melting'],
    ]);
  });
});
