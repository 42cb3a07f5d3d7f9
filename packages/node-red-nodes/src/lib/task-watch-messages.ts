import type { TaskWatchEvent, TaskWatchState, TaskWatchStats } from '@observation-service/core';
import type { Translate } from './events-status.js';
import type { NodeMessage, NodeStatus } from './node-red-api.js';
import { editorText } from './status-text.js';

/**
 * `msg.topic` of a watch event, for switch nodes and notifications: `name: before → after`.
 * Data, not an editor label, so it is the same in every language: `(new)` and `(removed)` mark
 * a task that appeared or disappeared.
 */
export function watchTopic(event: TaskWatchEvent): string {
  switch (event.type) {
    case 'initial':
      return `${event.taskName}: ${event.current.raw}`;
    case 'added':
      return `${event.taskName}: (new) → ${event.current.raw}`;
    case 'changed':
      return `${event.taskName}: ${event.previous.raw} → ${event.current.raw}`;
    case 'removed':
      return `${event.taskName}: ${event.previous.raw} → (removed)`;
  }
}

/** The message for one watch event: the event as payload, plus the task id and kind for switch nodes. */
export function watchMessage(event: TaskWatchEvent): NodeMessage {
  return { payload: event, topic: watchTopic(event), taskId: event.taskId, changeType: event.type };
}

/** What the status shows besides the watch's own state: the last transition seen. */
export interface LastChange {
  taskName: string;
  state: string;
  at: Date;
}

function clock(at: Date): string {
  return at.toTimeString().slice(0, 8);
}

/** Node status from the watch's state and counters; every text comes from the message catalog. */
export function watchStatus(
  state: TaskWatchState,
  stats: Readonly<TaskWatchStats>,
  last: LastChange | undefined,
  t: Translate,
): NodeStatus {
  const key = 'observation-task-watch.status';
  switch (state) {
    case 'starting':
      return { fill: 'yellow', shape: 'ring', text: editorText(`${key}.starting`) };
    case 'failing':
      return {
        fill: 'red',
        shape: 'ring',
        text: t(`${key}.failing`, { count: stats.consecutiveFailures }),
      };
    case 'closed':
      return { fill: 'grey', shape: 'ring', text: editorText(`${key}.closed`) };
    case 'running':
      return last
        ? {
            fill: 'green',
            shape: 'dot',
            text: t(`${key}.lastChange`, {
              count: stats.tasks,
              name: last.taskName,
              state: last.state,
              time: clock(last.at),
            }),
          }
        : { fill: 'green', shape: 'dot', text: t(`${key}.watching`, { count: stats.tasks }) };
  }
}
