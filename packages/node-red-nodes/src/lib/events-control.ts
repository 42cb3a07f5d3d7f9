import { type EventFilter, parseEventFilter, parseIdList, ValidationError } from '@observation-service/core';
import type { NodeMessage } from './node-red-api.js';
import type { TaskSelection } from './server-node.js';

/** What a message to the events node asks for (`msg.action`). */
export type EventsControl =
  | { action: 'pause' }
  | { action: 'resume' }
  /** Listen to other tasks and/or with other filters; what the message leaves out stays as it is. */
  | { action: 'subscribe'; selection?: TaskSelection; filter?: EventFilter };

const actions = ['pause', 'resume', 'subscribe'] as const;
const filterFields = ['eventNames', 'objectNames', 'minConfidence', 'warningsOnly'] as const;

/**
 * Reads a control message, as `mqtt in`'s dynamic subscriptions do: `msg.action` `pause`,
 * `resume` or `subscribe` (with `msg.tasks`: `all`, an id, ids or "1,2", and the filter fields
 * `msg.eventNames`, `msg.objectNames`, `msg.minConfidence`, `msg.warningsOnly`). A bad value
 * throws core's ValidationError naming the field, what was given and what is allowed.
 */
export function readControl(msg: NodeMessage): EventsControl {
  const action = msg.action;
  if (!(actions as readonly unknown[]).includes(action)) {
    throw new ValidationError(
      'msg.action',
      action === undefined ? 'nothing' : JSON.stringify(action),
      '"pause", "resume" or "subscribe"',
    );
  }
  if (action !== 'subscribe') return { action: action as 'pause' | 'resume' };
  const control: EventsControl = { action: 'subscribe' };
  if (msg.tasks !== undefined) {
    control.selection = msg.tasks === 'all' ? 'all' : parseIdList(msg.tasks, 'msg.tasks');
  }
  if (filterFields.some((field) => msg[field] !== undefined)) {
    const given: Record<string, unknown> = {};
    for (const field of filterFields) if (msg[field] !== undefined) given[field] = msg[field];
    try {
      control.filter = parseEventFilter(given);
    } catch (error) {
      // Name the message property the user set.
      if (ValidationError.isInstance(error))
        throw new ValidationError(`msg.${error.parameter}`, error.given, error.allowed);
      throw error;
    }
  }
  if (control.selection === undefined && control.filter === undefined) {
    throw new ValidationError(
      'msg.tasks',
      'nothing (no task selection nor filter in the message)',
      `msg.tasks ("all", ids) and/or ${filterFields.map((field) => `msg.${field}`).join(', ')}`,
    );
  }
  return control;
}

/** The task ids of a selection, short for the node's status ("1, 2, 3 +2"); undefined for all. */
export function selectionIds(selection: TaskSelection): string | undefined {
  if (selection === 'all') return undefined;
  const shown = selection.slice(0, 3).join(', ');
  return selection.length > 3 ? `${shown} +${selection.length - 3}` : shown;
}
