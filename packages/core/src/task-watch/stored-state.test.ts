import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../model/task.js';
import { diffTasks } from './diff-tasks.js';
import { readTaskWatch, storeTaskWatch, taskWatchScope } from './stored-state.js';

const at = new Date('2024-05-01T00:00:00Z');

function task(id: number, status: string, extra: Partial<TaskSummary> = {}): TaskSummary {
  return {
    id,
    name: `Task ${id}`,
    status,
    scheduler: '24/7',
    events: [2001],
    location_id: 3,
    camera_id: 4,
    camera_rtsp: 'rtsp://admin:secret@10.0.0.5:554/stream',
    ...extra,
  };
}

const scope = taskWatchScope('https://host/apiserver|svc');
const known = diffTasks(
  new Map(),
  [task(2, 'video'), task(1, 'operating, normal', { camera: { pwd: 'x' } })],
  at,
  'baseline',
).next;

describe('stored task watch state', () => {
  it('round-trips through JSON: statuses, names and ids, but never camera_rtsp or extra fields', () => {
    const stored = JSON.parse(JSON.stringify(storeTaskWatch(known, scope, undefined, at)));
    expect(stored).toEqual({
      format: 'observation-task-watch',
      version: 1,
      scope,
      selection: 'all',
      savedAt: '2024-05-01T00:00:00.000Z',
      tasks: [
        {
          id: 1,
          name: 'Task 1',
          status: 'operating, normal',
          scheduler: '24/7',
          events: [2001],
          location_id: 3,
          camera_id: 4,
        },
        {
          id: 2,
          name: 'Task 2',
          status: 'video',
          scheduler: '24/7',
          events: [2001],
          location_id: 3,
          camera_id: 4,
        },
      ],
    });
    expect(JSON.stringify(stored)).not.toContain('secret');
    const reading = readTaskWatch(stored, scope, undefined);
    if (reading.kind !== 'restored') throw new Error(`expected restored, got ${reading.kind}`);
    expect([...reading.known.keys()]).toEqual([1, 2]);
    expect(reading.known.get(1)?.status).toEqual({
      raw: 'operating, normal',
      category: 'operating',
      state: 'normal',
    });
    expect(reading.known.get(2)?.task).toMatchObject({ id: 2, name: 'Task 2', camera_rtsp: '' });
  });

  it("nothing stored is none; another service's is foreign; a corrupt or newer value is unusable with the reason", () => {
    expect(readTaskWatch(undefined, scope, undefined)).toEqual({ kind: 'none' });
    expect(readTaskWatch(null, scope, undefined)).toEqual({ kind: 'none' });
    const stored = storeTaskWatch(known, scope, undefined, at);
    const problem = (value: unknown) => {
      const reading = readTaskWatch(value, scope, undefined);
      return reading.kind === 'unusable' ? reading.problem : reading.kind;
    };
    expect(problem('text')).toMatch(/not an object \(string\)/);
    expect(problem({ format: 'observation-position' })).toMatch(/not a task watch state/);
    expect(problem({ ...stored, version: 2 })).toMatch(/version 2; this version reads 1/);
    // Another service's: set aside as a changed setting (a warning), not reported as corrupt.
    expect(problem({ ...stored, scope: taskWatchScope('https://other/apiserver|svc') })).toBe('foreign');
    expect(problem({ ...stored, selection: [1, 'x'] })).toMatch(/no selection/);
    expect(problem({ ...stored, tasks: 'x' })).toMatch(/no list of tasks/);
    expect(problem({ ...stored, tasks: [{ id: 'one', name: 'a', status: 'b' }] })).toMatch(
      /corrupt: a task has id "one"/,
    );
    expect(problem({ ...stored, tasks: [{ id: 1, status: 'b' }] })).toMatch(/task 1 has no name or status/);
  });

  it('after a change of selection, compares the tasks watched then and now; a newly watched one is not covered', () => {
    const stored = storeTaskWatch(known, scope, new Set([1, 2]), at);
    expect(stored.selection).toEqual([1, 2]);
    const reading = readTaskWatch(JSON.parse(JSON.stringify(stored)), scope, new Set([2, 3]));
    if (reading.kind !== 'restored') throw new Error(`expected restored, got ${reading.kind}`);
    expect([...reading.known.keys()]).toEqual([2]);
    expect([1, 2, 3].map(reading.watched)).toEqual([true, true, false]);
    const all = readTaskWatch(storeTaskWatch(known, scope, undefined, at), scope, new Set([3]));
    expect(all.kind === 'restored' && all.watched(3)).toBe(true);
  });

  it('the scope names the service only', () => {
    expect(taskWatchScope('a')).toBe(taskWatchScope('a'));
    expect(taskWatchScope('a')).not.toBe(taskWatchScope('b'));
  });
});
