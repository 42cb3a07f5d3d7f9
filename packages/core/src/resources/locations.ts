import type { ClientCore } from '../context/client-core.js';
import { getJson } from '../http/request.js';
import type { Location } from '../model/location.js';
import { parseId } from '../validation/parse-id.js';
import type { LocationFilters } from './filter-types.js';
import { parseLocationFilters } from './parse-filters.js';
import { expectRecord, readAll, readPage } from './read-list.js';

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface LocationsApi {
  /** One page of `GET /locations`. */
  list(filters?: LocationFilters, options?: RequestOptions): Promise<Location[]>;
  /** `GET /locations/:location_id`. */
  get(id: number | string, options?: RequestOptions): Promise<Location>;
  /** Every location, page by page (next page prefetched). */
  all(filters?: LocationFilters, options?: RequestOptions): AsyncIterable<Location>;
}

export function createLocationsApi(core: ClientCore): LocationsApi {
  return {
    list(filters, options) {
      const parsed = parseLocationFilters(filters);
      return readPage<Location>(
        core,
        '/locations',
        parsed.query,
        parsed.offset,
        parsed.limit,
        options?.signal,
      );
    },
    async get(id, options) {
      const locationId = parseId(id, 'locationId');
      core.assertOpen();
      const body = await getJson(core.http, { path: `/locations/${locationId}`, signal: options?.signal });
      return expectRecord<Location>(body, `GET /locations/${locationId}`);
    },
    all(filters, options) {
      const parsed = parseLocationFilters(filters);
      return readAll<Location>(
        core,
        '/locations',
        parsed.query,
        parsed.offset,
        parsed.limit,
        options?.signal,
      );
    },
  };
}
