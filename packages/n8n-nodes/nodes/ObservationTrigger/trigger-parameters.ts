import {
  type EventFilter,
  type PositionStore,
  parseEventFilter,
  type SubscribeOptions,
  type TaskSelection,
  ValidationError,
} from '@observation-service/core/portable';
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import { readTaskSelection } from '../../shared/task-selection';

/** Longest catch-up look-back the node allows (the service keeps history, but a flood helps nobody). */
export const maxCatchUpMinutes = 24 * 60;
/** Longest allowed lateness the node offers: an hour of re-reading at every reconnect is plenty. */
export const maxLatenessSeconds = 3600;
/** Most events in one execution: beyond this one execution's items get unwieldy in n8n's editor. */
export const maxBatchSize = 1000;
/** Longest wait for a batch to fill: ten minutes between a camera event and its workflow is plenty. */
export const maxBatchWaitMs = 600_000;

export interface TriggerSettings {
  selection: TaskSelection;
  filter: EventFilter;
  attachSnapshot: boolean;
  binaryPropertyName: string;
  catchUp: boolean;
  maxLookBackMs: number;
  allowedLatenessMs: number;
  /** Events per execution (1: one execution per event). */
  batchSize: number;
  /** How long a batch waits for more events after its first one. */
  batchWaitMs: number;
  /** Start again an execution n8n failed because its queue-mode worker died. */
  rerunLostExecutions: boolean;
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
    // Core validates it (a value typed into an expression gets core's message).
    allowedLatenessMs: Number(options.allowedLatenessSeconds ?? 120) * 1000,
    batchSize: wholeNumber(options.batchSize, 'Batch Size', 1, 1, maxBatchSize),
    batchWaitMs: wholeNumber(options.batchWaitMs, 'Batch Wait (Milliseconds)', 1000, 1, maxBatchWaitMs),
    rerunLostExecutions: options.rerunLostExecutions === true,
  };
}

/** A whole-number option typed by the user (or an expression), checked with a message naming it. */
function wholeNumber(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    const given = typeof value === 'string' ? `"${value.slice(0, 40)}"` : String(value);
    throw new ValidationError(field, given, `a whole number from ${min} to ${max}`);
  }
  return number;
}

/** Where the trigger keeps core's position: the workflow's static data, which n8n saves with each execution. */
export function staticDataPositionStore(staticData: IDataObject): PositionStore {
  return {
    // Earlier versions kept a `{ time, id }` cursor; core migrates it once.
    load: () => staticData.position ?? staticData.cursor,
    save(position) {
      staticData.position = position as unknown as IDataObject;
      delete staticData.cursor;
    },
  };
}

/**
 * Subscribe options for production. With catch-up on, core resumes from its position in static
 * data (saved as soon as an event's execution was emitted) and falls back to the
 * look-back when the stored one cannot be used; with it off, every activation starts live.
 */
export function subscribeOptions(
  settings: TriggerSettings,
  staticData: IDataObject,
  position?: PositionStore,
): SubscribeOptions {
  const base: SubscribeOptions = { allowedLatenessMs: settings.allowedLatenessMs };
  // A batch needs its events with the handler together; each one completes when its batch was
  // emitted, so the position never covers an event n8n has not received.
  if (settings.batchSize > 1) base.maxInFlight = settings.batchSize;
  if (!settings.catchUp) return base;
  return {
    ...base,
    position: position ?? staticDataPositionStore(staticData),
    positionSaveMs: 0,
    lookBackMs: settings.maxLookBackMs,
    maxLookBackMs: settings.maxLookBackMs,
  };
}
