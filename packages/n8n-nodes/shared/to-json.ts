import type { IDataObject } from 'n8n-workflow';

/**
 * Core's results are plain data with `Date` fields; n8n items must be JSON. A JSON round trip
 * turns dates into ISO strings and drops `undefined`, so the table view shows flat columns.
 */
export function toJson(value: unknown): IDataObject {
  return JSON.parse(JSON.stringify(value)) as IDataObject;
}
