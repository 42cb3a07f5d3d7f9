import {
  type Location,
  locationOutput,
  type ObservationClient,
  parseId,
  parseLimit,
} from '@observation-service/core/portable';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { toJson } from '../../../shared/to-json';
import { locatorValue, optional, readPaging, take, wantsRaw } from './read-parameters';

/** A location in the shape both hosts show (`organizationId`, …), or raw: the service's JSON. */
function locationJson(location: Location, raw: boolean): IDataObject {
  return toJson(raw ? location : locationOutput(location));
}

/** Location → Get. */
export async function getLocation(
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
): Promise<IDataObject[]> {
  const id = parseId(locatorValue(context, 'location', itemIndex), 'Location');
  return [locationJson(await client.locations.get(id), wantsRaw(context, itemIndex))];
}

/** Location → Get Many. */
export async function getManyLocations(
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
): Promise<IDataObject[]> {
  const filters = context.getNodeParameter('filters', itemIndex, {}) as IDataObject;
  const { returnAll, limit } = readPaging(context, itemIndex);
  const organization = optional(filters, 'organizationId');
  const query = {
    organizationId: organization === undefined ? undefined : parseId(organization, 'Organization ID'),
  };
  const max = returnAll ? 0 : parseLimit(limit, 'Limit');
  const raw = wantsRaw(context, itemIndex);
  return (await take(client.locations.all(query), max)).map((location) => locationJson(location, raw));
}
