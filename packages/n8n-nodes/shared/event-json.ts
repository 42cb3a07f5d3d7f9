import type { ObservationEvent } from '@observation-service/core/portable';
import type { IDataObject } from 'n8n-workflow';
import { toJson } from './to-json';

/**
 * One output item per event: core's normalized event with flat top-level fields (taskId,
 * eventName, occurredAt as ISO text, maxConfidence, …), the `objects` array and a `vlm` object,
 * which n8n's table view shows as columns. `extra` (fields the spec does not describe) is kept
 * only when the service sent any.
 */
export function eventToJson(event: ObservationEvent): IDataObject {
  const json = toJson(event);
  if (json.extra && typeof json.extra === 'object' && Object.keys(json.extra).length === 0) delete json.extra;
  return json;
}
