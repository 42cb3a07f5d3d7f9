import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../model/task.js';
import { diffTasks, type KnownTask } from './diff-tasks.js';

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
    camera_rtsp: 'rtsp://cam',
  };
}

function remember(tasks: TaskSummary[]): Map<number, KnownTask> {
  return diffTasks(new Map(), tasks, at, 'baseline').next;
}

describe('diffTasks', () => {
  it('a baseline reports nothing, or every task as initial', () => {
    const tasks = [task(2, 'video'), task(1, 'operating, normal')];
    expect(diffTasks(new Map(), tasks, at, 'baseline').events).toEqual([]);
    const initial = diffTasks(new Map(), tasks, at, 'baseline-initial').events;
    expect(initial.map((e) => [e.type, e.taskId, e.current?.category, e.current?.state])).toEqual([
      ['initial', 1, 'operating', 'normal'],
      ['initial', 2, 'unknown', 'video'],
    ]);
  });

  it('reports a status transition with both parsed statuses', () => {
    const known = remember([task(1, 'operating, normal'), task(2, 'operating, slow')]);
    const { events } = diffTasks(
      known,
      [task(1, 'operating, disconnected'), task(2, 'operating, slow')],
      at,
      'compare',
    );
    expect(events).toEqual([
      {
        type: 'changed',
        taskId: 1,
        taskName: 'Task 1',
        at,
        // The task in the hosts' shape (camelCase, scheduler an object), not the spec's.
        task: {
          id: 1,
          name: 'Task 1',
          status: 'operating, disconnected',
          statusParsed: { category: 'operating', state: 'disconnected', raw: 'operating, disconnected' },
          scheduler: { type: '24/7' },
          eventTypeIds: [],
          locationId: 1,
          cameraId: 1,
          cameraRtsp: 'rtsp://cam',
        },
        previous: { category: 'operating', state: 'normal', raw: 'operating, normal' },
        current: { category: 'operating', state: 'disconnected', raw: 'operating, disconnected' },
      },
    ]);
  });

  it('ignores a change of spelling only, but not a change between unknown values', () => {
    const known = remember([task(1, 'operating, normal'), task(2, 'video')]);
    expect(diffTasks(known, [task(1, ' Operating,Normal '), task(2, 'video')], at, 'compare').events).toEqual(
      [],
    );
    const { events } = diffTasks(known, [task(1, 'operating, normal'), task(2, 'rebooting')], at, 'compare');
    expect(events.map((e) => [e.type, e.previous?.state, e.current?.category, e.current?.state])).toEqual([
      ['changed', 'video', 'unknown', 'rebooting'],
    ]);
  });

  it('reports added and removed tasks in id order; the removed one with its last known name and status', () => {
    const known = remember([task(1, 'operating, normal'), task(3, 'non-operating, paused', 'Gate')]);
    const { events, next } = diffTasks(
      known,
      [task(1, 'operating, normal'), task(2, 'video')],
      at,
      'compare',
    );
    expect(events.map((e) => [e.type, e.taskId, e.taskName, e.previous?.raw, e.current?.raw])).toEqual([
      ['added', 2, 'Task 2', undefined, 'video'],
      ['removed', 3, 'Gate', 'non-operating, paused', undefined],
    ]);
    expect([...next.keys()]).toEqual([1, 2]);
  });

  it('skips entries without a usable id and survives odd statuses', () => {
    const odd = [null, { id: 'x' }, { id: -1 }, { ...task(4, ''), status: 42 }] as unknown as TaskSummary[];
    const { events, next } = diffTasks(new Map(), odd, at, 'baseline-initial');
    expect(events.map((e) => [e.taskId, e.current?.category])).toEqual([[4, 'unknown']]);
    expect(next.size).toBe(1);
  });
});
