import { type ObservationClient, parseId, parseLimit } from '@observation-service/core/portable';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { toJson } from '../../../shared/to-json';
import { locatorValue, optional, readPaging, take } from './read-parameters';

/** Location → Get. Locations have no normalized form: the service's fields pass through. */
export async function getLocation(
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
): Promise<IDataObject[]> {
  const id = parseId(locatorValue(context, 'location', itemIndex), 'Location');
  return [toJson(await client.locations.get(id))];
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
  return (await take(client.locations.all(query), max)).map(toJson);
}
