import type { Location } from '../model/location.js';
import type { GeoCoordinates } from '../model/observation-event.js';
import { isRecord } from '../normalize/read-fields.js';
import { copyUnknownFields, putDefined } from './camel-case.js';

/**
 * A location as both hosts show it: the event's camelCase, `organization_id` as
 * `organizationId`; fields the spec does not describe follow with their key in camelCase.
 */
export interface LocationOutput {
  id: number;
  name: string;
  /** IANA zone name, `Area/City`. */
  timezone: string;
  organizationId: number;
  coordinates: GeoCoordinates;
  [extra: string]: unknown;
}

const handled = new Set(['id', 'name', 'timezone', 'organization_id', 'coordinates']);

/**
 * The host shape of a location as the service sent it (`locations.get` / `list` / `all`). Pure
 * and total: a field the service left out is left out, a value is never changed.
 */
export function locationOutput(location: Location): LocationOutput {
  const raw: Record<string, unknown> = isRecord(location) ? location : {};
  const out: Record<string, unknown> = {};
  putDefined(out, 'id', raw.id);
  putDefined(out, 'name', raw.name);
  putDefined(out, 'timezone', raw.timezone);
  putDefined(out, 'organizationId', raw.organization_id);
  putDefined(out, 'coordinates', raw.coordinates);
  copyUnknownFields(out, raw, handled);
  return out as LocationOutput;
}
