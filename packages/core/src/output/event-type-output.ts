import type { EventType } from '../model/event-type.js';
import { isRecord } from '../normalize/read-fields.js';
import { copyUnknownFields, putDefined } from './camel-case.js';

/**
 * An event type as both hosts show it. Its `id` is what an event calls `eventTypeId`; fields
 * the spec does not describe follow with their key in camelCase.
 */
export interface EventTypeOutput {
  id: number;
  name: string;
  description: string;
  [extra: string]: unknown;
}

const handled = new Set(['id', 'name', 'description']);

/** The host shape of an event type as the service sent it (`events.getType`). Pure and total. */
export function eventTypeOutput(type: EventType): EventTypeOutput {
  const raw: Record<string, unknown> = isRecord(type) ? type : {};
  const out: Record<string, unknown> = {};
  putDefined(out, 'id', raw.id);
  putDefined(out, 'name', raw.name);
  putDefined(out, 'description', raw.description);
  copyUnknownFields(out, raw, handled);
  return out as EventTypeOutput;
}
