import type { ClientForm } from '../context/form-state.js';
import { ValidationError } from '../errors/validation-error.js';
import type { QueryValue } from '../http/request.js';
import { checkFilterNames } from '../validation/check-filter-names.js';
import { describeValue } from '../validation/describe-value.js';
import { toWireTime } from '../validation/iso-time.js';
import { parseId } from '../validation/parse-id.js';
import { parseIdList } from '../validation/parse-id-list.js';
import { parseLimit, parseOffset } from '../validation/parse-limit.js';
import { parseTimeToDate } from '../validation/parse-time.js';

export interface ParsedFilters {
  /** Wire parameters except offset and limit. */
  query: Record<string, QueryValue>;
  offset: number | undefined;
  limit: number | undefined;
}

export interface ParsedHistoryFilters extends ParsedFilters {
  start?: Date;
  end?: Date;
  /** Extended-only filters that were given (a basic-form service would ignore them). */
  extendedOnly: string[];
}

const historyNames = [
  'startTime',
  'endTime',
  'eventName',
  'taskId',
  'eventTypeId',
  'locationId',
  'cameraId',
  'ids',
  'offset',
  'limit',
] as const;
const historyAliases: Record<string, string> = {
  start_time: 'startTime',
  end_time: 'endTime',
  event_name: 'eventName',
  task_id: 'taskId',
  event_id: 'eventTypeId',
  // The name before events carried their type as `eventTypeId`: kept for code written then.
  eventId: 'eventTypeId',
  location_id: 'locationId',
  camera_id: 'cameraId',
};
const extendedOnly = new Set(['eventTypeId', 'locationId', 'cameraId', 'ids']);

function parseEventName(value: unknown, field: string): string {
  const allowed = 'a non-empty event name of at most 200 characters, e.g. "person_detected"';
  // Control characters have no place in a label and would only obscure logs.
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200 || /\p{Cc}/u.test(value)) {
    throw new ValidationError(field, describeValue(value), allowed);
  }
  return value.trim();
}

function common(filters: Record<string, unknown>): { offset: number | undefined; limit: number | undefined } {
  return {
    offset: filters.offset === undefined ? undefined : parseOffset(filters.offset, 'offset'),
    limit: filters.limit === undefined ? undefined : parseLimit(filters.limit, 'limit'),
  };
}

/** A time as given (text keeps its zone) and in UTC, e.g. `"2024-05-02T10:00:00+08:00" (2024-05-02 02:00:00 UTC)`. */
function asGiven(raw: unknown, parsed: Date): string {
  const utc = `${toWireTime(parsed).replace('T', ' ')} UTC`;
  return typeof raw === 'string' && raw.trim() !== toWireTime(parsed)
    ? `${JSON.stringify(raw.trim())} (${utc})`
    : utc;
}

/** Validates history filters (before any request) and maps them to the spec's wire names. */
export function parseHistoryFilters(filters: unknown, form: ClientForm): ParsedHistoryFilters {
  const f = checkFilterNames(filters, historyNames, 'history', historyAliases);
  if (form === 'basic') {
    for (const name of Object.keys(f)) {
      if (extendedOnly.has(name)) {
        throw new ValidationError(
          name,
          describeValue(f[name]),
          'no value: this filter exists only in the extended form, and the client is configured with form "basic"',
        );
      }
    }
  }
  const query: Record<string, QueryValue> = {};
  const start = f.startTime === undefined ? undefined : parseTimeToDate(f.startTime, 'startTime');
  const end = f.endTime === undefined ? undefined : parseTimeToDate(f.endTime, 'endTime');
  if (start && end && toWireTime(start) > toWireTime(end)) {
    // Both times as the user wrote them (with their time zone), then in UTC as the service reads them.
    throw new ValidationError(
      'startTime',
      `${asGiven(f.startTime, start)}, later than the end time ${asGiven(f.endTime, end)}`,
      'a start time not after the end time',
    );
  }
  if (start) query.start_time = toWireTime(start);
  if (end) query.end_time = toWireTime(end);
  if (f.eventName !== undefined) query.event_name = parseEventName(f.eventName, 'eventName');
  if (f.taskId !== undefined) query.task_id = parseId(f.taskId, 'taskId');
  if (f.eventTypeId !== undefined) query.event_id = parseId(f.eventTypeId, 'eventTypeId');
  if (f.locationId !== undefined) query.location_id = parseId(f.locationId, 'locationId');
  if (f.cameraId !== undefined) query.camera_id = parseId(f.cameraId, 'cameraId');
  if (f.ids !== undefined) query.ids = parseIdList(f.ids, 'ids').join(',');
  const result: ParsedHistoryFilters = {
    query,
    ...common(f),
    extendedOnly: Object.keys(f).filter((name) => extendedOnly.has(name)),
  };
  if (start) result.start = start;
  if (end) result.end = end;
  return result;
}

/** Validates `GET /locations` filters. */
export function parseLocationFilters(filters: unknown): ParsedFilters {
  const f = checkFilterNames(filters, ['organizationId', 'ids', 'offset', 'limit'], 'locations', {
    organization_id: 'organizationId',
  });
  const query: Record<string, QueryValue> = {};
  if (f.organizationId !== undefined) query.organization_id = parseId(f.organizationId, 'organizationId');
  if (f.ids !== undefined) query.ids = parseIdList(f.ids, 'ids').join(',');
  return { query, ...common(f) };
}

/** Validates `GET /tasks` filters. */
export function parseTaskFilters(filters: unknown): ParsedFilters {
  const f = checkFilterNames(filters, ['locationId', 'cameraId', 'ids', 'offset', 'limit'], 'tasks', {
    location_id: 'locationId',
    camera_id: 'cameraId',
  });
  const query: Record<string, QueryValue> = {};
  if (f.locationId !== undefined) query.location_id = parseId(f.locationId, 'locationId');
  if (f.cameraId !== undefined) query.camera_id = parseId(f.cameraId, 'cameraId');
  if (f.ids !== undefined) query.ids = parseIdList(f.ids, 'ids').join(',');
  return { query, ...common(f) };
}
