import type { ObservationEvent } from '@observation-service/core/portable';
import type { IDataObject } from 'n8n-workflow';

/**
 * One output item per event: core's normalized event with flat top-level fields (taskId,
 * eventName, occurredAt as ISO text, maxConfidence, …), the `objects` array and a `vlm` object,
 * which n8n's table view shows as columns. `extra` (fields the spec does not describe) is kept
 * only when the service sent any.
 *
 * A normalized event is plain data apart from `occurredAt` (a Date) and has no undefined field,
 * so a copy with that one field as text is already JSON, in the event's own field order. (A JSON
 * round trip of every event, as before, was most of the trigger's CPU time per event.)
 */
export function eventToJson(event: ObservationEvent): IDataObject {
  const json = { ...event, occurredAt: event.occurredAt.toISOString() } as unknown as IDataObject;
  if (Object.keys(event.extra).length === 0) delete json.extra;
  return json;
}
