import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../model/task.js';
import { taskWatchScope } from './stored-state.js';
import { currentTaskStatuses, taskChanges } from './task-changes.js';

const at = new Date('2024-05-01T00:00:00Z');
const scope = taskWatchScope('http://service/apiserver|svc');

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

/** What a host would store and load again: the state through JSON. */
const stored = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('taskChanges (a host that owns the schedule and the storage)', () => {
  it('without a usable state only sets the baseline, in the task watch format, without camera addresses', () => {
    for (const kept of [undefined, null, 'garbage', [1, 2], { format: 'something-else' }]) {
      const first = taskChanges(kept, [task(2, 'video'), task(1, 'operating, normal')], at, scope);
      expect(first.baseline).toBe(true);
      expect(first.events).toEqual([]);
      expect(first.state.format).toBe('observation-task-watch');
      expect(first.state.tasks.map((entry) => [entry.id, entry.status])).toEqual([
        [1, 'operating, normal'],
        [2, 'video'],
      ]);
      expect(JSON.stringify(first.state)).not.toContain('secret');
      // Something stored that is not a state is said once by the host; nothing stored is no problem.
      expect(first.problem === undefined).toBe(kept === undefined || kept === null);
    }
  });

  it('reports what changed since the stored state: transitions, additions, removals, by task id', () => {
    const { state } = taskChanges(
      undefined,
      [task(1, 'operating, normal'), task(2, 'operating, slow'), task(3, 'non-operating, paused')],
      at,
      scope,
    );
    const later = new Date('2024-05-01T01:00:00Z');
    const next = taskChanges(
      stored(state),
      [task(4, 'operating, normal', 'Dock'), task(2, 'Operating,Slow'), task(1, 'operating, disconnected')],
      later,
      scope,
    );
    expect(next.baseline).toBe(false);
    expect(
      next.events.map((e) => [e.type, e.taskId, e.previous?.raw ?? null, e.current?.raw ?? null]),
    ).toEqual([
      ['changed', 1, 'operating, normal', 'operating, disconnected'],
      ['removed', 3, 'non-operating, paused', null],
      ['added', 4, null, 'operating, normal'],
    ]);
    // A removed task is reported with what was kept of it, never its camera address.
    expect(next.events[1]?.task).toMatchObject({ id: 3, name: 'Task 3', status: 'non-operating, paused' });
    expect(next.events[1]?.task.cameraRtsp).toBe('');
    expect(next.events[1]?.at).toBe(later);
    expect(next.state.tasks.map((entry) => entry.id)).toEqual([1, 2, 4]);
    // Nothing new: nothing reported.
    const again = taskChanges(
      stored(next.state),
      [task(4, 'operating, normal', 'Dock'), task(2, 'operating, slow'), task(1, 'operating, disconnected')],
      later,
      scope,
    );
    expect(again.events).toEqual([]);
  });

  it('a state kept for another service is not used: a fresh baseline, and the host is told why in a note, not a problem', () => {
    const { state } = taskChanges(undefined, [task(1, 'operating, normal')], at, scope);
    const other = taskChanges(stored(state), [task(1, 'video')], at, taskWatchScope('http://other|x'));
    expect(other.baseline).toBe(true);
    expect(other.events).toEqual([]);
    expect(other.note).toMatch(/another service/);
    expect(other.problem).toBeUndefined();
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
