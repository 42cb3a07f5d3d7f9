import {
  eventTypeOutput,
  type ObservationClient,
  parseId,
  parseIdList,
  parseLimit,
} from '@observation-service/core/portable';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { eventToJson } from '../../../shared/event-json';
import { toJson } from '../../../shared/to-json';
import { optional, readPaging, take, wantsRaw } from './read-parameters';

/** Event → Get Many: history with the chosen filters, page by page through core. */
export async function getManyEvents(
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
): Promise<IDataObject[]> {
  const filters = context.getNodeParameter('filters', itemIndex, {}) as IDataObject;
  const { returnAll, limit } = readPaging(context, itemIndex);
  const task = optional(filters, 'task');
  const location = optional(filters, 'location');
  const eventType = optional(filters, 'eventTypeId');
  const camera = optional(filters, 'cameraId');
  const ids = optional(filters, 'ids');
  const query = {
    startTime: optional(filters, 'startTime') as string | undefined,
    endTime: optional(filters, 'endTime') as string | undefined,
    eventName: optional(filters, 'eventName') as string | undefined,
    taskId: task === undefined ? undefined : parseId(task, 'Task'),
    eventTypeId: eventType === undefined ? undefined : parseId(eventType, 'Event Type'),
    locationId: location === undefined ? undefined : parseId(location, 'Location'),
    cameraId: camera === undefined ? undefined : parseId(camera, 'Camera ID'),
    ids: ids === undefined ? undefined : parseIdList(ids, 'Event Record IDs'),
  };
  if (wantsRaw(context, itemIndex)) {
    // The service's items as sent (snake_case, nothing normalized or skipped).
    const max = returnAll ? undefined : parseLimit(limit, 'Limit');
    return (await take(client.events.historyRaw(query, { max }), 0)).map(toJson);
  }
  const events = returnAll
    ? await take(client.events.historyAll(query), 0)
    : await client.events.collectHistory(query, { max: parseLimit(limit, 'Limit') });
  return events.map(eventToJson);
}

/** Event → Get Type. */
export async function getEventType(
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
): Promise<IDataObject[]> {
  const id = parseId(context.getNodeParameter('eventTypeId', itemIndex), 'Event Type');
  const type = await client.events.getType(id);
  return [toJson(wantsRaw(context, itemIndex) ? type : eventTypeOutput(type))];
}
