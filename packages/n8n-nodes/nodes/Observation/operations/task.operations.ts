import {
  type ObservationClient,
  parseId,
  parseLimit,
  type TaskDetail,
  type TaskSummary,
  taskOutput,
} from '@observation-service/core/portable';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { toJson } from '../../../shared/to-json';
import { locatorValue, optional, readPaging, take, wantsRaw } from './read-parameters';

/**
 * A task in the shape both hosts show (core's `taskOutput`: camelCase, `scheduler` an object,
 * `eventTypeIds`, `statusParsed`), or with Output Raw Payload the service's own JSON.
 */
function taskJson(task: TaskSummary | TaskDetail, raw: boolean): IDataObject {
  return toJson(raw ? task : taskOutput(task));
}

/** Task → Get (detail form). */
export async function getTask(
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
): Promise<IDataObject[]> {
  const id = parseId(locatorValue(context, 'task', itemIndex), 'Task');
  return [taskJson(await client.tasks.get(id), wantsRaw(context, itemIndex))];
}

/** Task → Get Many (list form). */
export async function getManyTasks(
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
): Promise<IDataObject[]> {
  const filters = context.getNodeParameter('filters', itemIndex, {}) as IDataObject;
  const { returnAll, limit } = readPaging(context, itemIndex);
  const location = optional(filters, 'location');
  const camera = optional(filters, 'cameraId');
  const query = {
    locationId: location === undefined ? undefined : parseId(location, 'Location'),
    cameraId: camera === undefined ? undefined : parseId(camera, 'Camera ID'),
  };
  const max = returnAll ? 0 : parseLimit(limit, 'Limit');
  const raw = wantsRaw(context, itemIndex);
  return (await take(client.tasks.all(query), max)).map((task) => taskJson(task, raw));
}
