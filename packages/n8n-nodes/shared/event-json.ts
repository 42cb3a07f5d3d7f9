import type { ObservationEvent } from '@observation-service/core/portable';
import type { IDataObject } from 'n8n-workflow';

/**
 * One output item per event: core's normalized event with flat top-level fields (taskId,
 * eventName, occurredAt as ISO text, maxConfidence, …), the `objects` array and a `vlm` object,
 * which n8n's table view shows as columns. `extra` (fields the spec does not describe) is kept
 * only when the service sent any.
 *
 * A normalized event is plain data apart from `occurredAt` (a Date) and has no undefined field,
 * so a copy with that one field as text is already JSON, in the event's own field order (`extra`,
 * when there is one, last). (A JSON round trip of every event, as before, was most of the
 * trigger's CPU time per event.)
 *
 * `extra` is left out of the copy rather than deleted from it: deleting a property that is not
 * the last one turns a V8 object into a slow dictionary, and every later step of n8n's (copies,
 * serialization) then took up to twice as long on it.
 */
export function eventToJson(event: ObservationEvent): IDataObject {
  const { extra, ...rest } = event;
  const json = rest as unknown as IDataObject;
  json.occurredAt = event.occurredAt.toISOString();
  if (hasKeys(extra)) json.extra = extra as IDataObject;
  return json;
}

function hasKeys(record: object): boolean {
  for (const _ in record) return true;
  return false;
}
