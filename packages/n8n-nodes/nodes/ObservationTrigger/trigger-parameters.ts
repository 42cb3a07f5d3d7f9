import {
  type EventFilter,
  parseEventFilter,
  type SubscribeOptions,
  type TaskSelection,
} from '@observation-service/core/portable';
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import { readTaskSelection } from '../../shared/task-selection';

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

/** Reads the trigger's parameters; ids and filters are checked by core (same messages as Node-RED). */
export function readTriggerSettings(context: ITriggerFunctions): TriggerSettings {
  const selection: TaskSelection = readTaskSelection(context);
  const filters = context.getNodeParameter('filters', {}) as IDataObject;
  const options = context.getNodeParameter('options', {}) as IDataObject;
  const minutes = Math.min(Number(options.maxLookBackMinutes ?? 60), maxCatchUpMinutes);
  return {
    selection,
    filter: parseEventFilter({
      eventNames: filters.eventNames as string[] | string | undefined,
      objectNames: filters.objectNames as string | undefined,
      minConfidence: filters.minConfidence as number | undefined,
      warningsOnly: filters.warningsOnly === true,
    }),
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
