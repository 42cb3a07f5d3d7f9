import { parseIdList, type SubscribeOptions, type TaskSelection } from '@observation-service/core';
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import type { EventFilter } from '../../shared/event-filter';

/** Longest catch-up look-back the node allows (the service keeps history, but a flood helps nobody). */
export const maxCatchUpMinutes = 24 * 60;

export interface TriggerSettings {
  selection: TaskSelection;
  filter: EventFilter;
  attachSnapshot: boolean;
  binaryPropertyName: string;
  catchUp: boolean;
  maxLookBackMs: number;
}

function splitNames(value: unknown): string[] | undefined {
  if (typeof value !== 'string') return undefined;
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.length > 0 ? names : undefined;
}

/** Reads the trigger's parameters; ids are checked by core's validators (same messages everywhere). */
export function readTriggerSettings(context: ITriggerFunctions): TriggerSettings {
  const tasks = context.getNodeParameter('tasks', 'all') as string;
  let selection: TaskSelection = 'all';
  if (tasks === 'list') {
    selection = parseIdList(context.getNodeParameter('taskList', []) as unknown, 'Tasks');
  } else if (tasks === 'ids') {
    selection = parseIdList(context.getNodeParameter('taskIds', '') as unknown, 'Task IDs');
  }
  const filters = context.getNodeParameter('filters', {}) as IDataObject;
  const options = context.getNodeParameter('options', {}) as IDataObject;
  const minutes = Math.min(Number(options.maxLookBackMinutes ?? 60), maxCatchUpMinutes);
  return {
    selection,
    filter: {
      eventNames: (filters.eventNames as string[] | undefined) ?? undefined,
      minConfidence: typeof filters.minConfidence === 'number' ? filters.minConfidence : undefined,
      objectNames: splitNames(filters.objectNames),
      warningsOnly: filters.warningsOnly === true,
    },
    attachSnapshot: options.attachSnapshot === true,
    binaryPropertyName: (options.binaryPropertyName as string | undefined) || 'data',
    catchUp: options.catchUp === true,
    maxLookBackMs: Math.max(1, minutes) * 60_000,
  };
}

/** Subscribe options for production: resume from the stored cursor when catch-up is on. */
export function subscribeOptions(settings: TriggerSettings, cursor: unknown): SubscribeOptions {
  if (!settings.catchUp || !cursor || typeof cursor !== 'object') return {};
  const { time, id } = cursor as { time?: unknown; id?: unknown };
  if (typeof time !== 'string') return { maxLookBackMs: settings.maxLookBackMs };
  return {
    since: { time, id: typeof id === 'number' ? id : undefined },
    maxLookBackMs: settings.maxLookBackMs,
  };
}
