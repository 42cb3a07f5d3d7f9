import {
  type ObservationClient,
  parseId,
  parseLimit,
  parseTaskStatus,
} from '@observation-service/core/portable';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { toJson } from '../../../shared/to-json';
import { locatorValue, optional, readPaging, take, wantsRaw } from './read-parameters';

/** Adds core's reading of the status (`operating, normal` → category + state) next to it. */
function withParsedStatus(task: { status: string }, raw: boolean): IDataObject {
  const json = toJson(task);
  if (!raw) json.statusParsed = toJson(parseTaskStatus(task.status));
  return json;
}

/** Task → Get (detail form). */
export async function getTask(
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
): Promise<IDataObject[]> {
  const id = parseId(locatorValue(context, 'task', itemIndex), 'Task');
  return [withParsedStatus(await client.tasks.get(id), wantsRaw(context, itemIndex))];
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
  return (await take(client.tasks.all(query), max)).map((task) => withParsedStatus(task, raw));
}
