import type { GeoCoordinates } from './observation-event.js';

/** A location (spec 2.5). Unknown fields pass through. */
export interface Location {
  id: number;
  name: string;
  /** IANA zone name, `Area/City`. */
  timezone: string;
  organization_id: number;
  coordinates: GeoCoordinates;
  [extra: string]: unknown;
}
