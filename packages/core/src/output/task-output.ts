import type { TaskDetail, TaskSummary, Zone } from '../model/task.js';
import { isRecord } from '../normalize/read-fields.js';
import { parseTaskStatus, type TaskStatus } from '../task-status.js';
import { copyUnknownFields, putDefined } from './camel-case.js';

/**
 * A task's schedule as both hosts show it, in both forms: the list's `"24/7"` becomes
 * `{ type: "24/7" }`, the detail's `{ type, interval, start_time, end_time }` becomes
 * `{ type, interval, startTime, endTime }`, so `scheduler.type` reads the same on both.
 */
export interface TaskSchedulerOutput {
  type: string;
  interval?: number;
  /** `hh:mm`. */
  startTime?: string;
  /** `hh:mm`. */
  endTime?: string;
  [extra: string]: unknown;
}

/** An event kind configured on a task (detail form), keys in camelCase. */
export interface TaskEventOutput {
  id: number;
  name: string;
  detectingDuration: number;
  detectingThreshold: number;
  interval: number;
  zones: Zone[];
  [extra: string]: unknown;
}

/**
 * A task as both hosts show it, from the list (`tasks.list` / `all`) or the detail
 * (`tasks.get`): the same fields under the same names, so one expression works on both.
 * `eventTypeIds` is on both; `events` (the configured event kinds), `confidenceThreshold` and
 * `objectSizeFilter` only in the detail, as the service sends them only there.
 */
export interface TaskOutput {
  id: number;
  name: string;
  status: string;
  /** `parseTaskStatus(status)`: `{ category, state, raw }`. */
  statusParsed: TaskStatus;
  scheduler: TaskSchedulerOutput;
  /** Ids of the event types the task detects (what an event calls `eventTypeId`). */
  eventTypeIds: number[];
  events?: TaskEventOutput[];
  locationId: number;
  cameraId: number;
  /** `rtsp://host:port/path`; may carry camera credentials, so treat as sensitive. */
  cameraRtsp: string;
  /** Object name → minimum confidence (the object names are data: kept as the service spells them). */
  confidenceThreshold?: Record<string, number>;
  /** Object name → four size numbers (object names kept as sent). */
  objectSizeFilter?: Record<string, [number, number, number, number]>;
  [extra: string]: unknown;
}

const handled = new Set([
  'id',
  'name',
  'status',
  'scheduler',
  'events',
  'location_id',
  'camera_id',
  'camera_rtsp',
  'confidence_threshold',
  'object_size_filter',
]);

/** The schedule in one shape: a bare kind (list form) becomes `{ type }`; other values pass as sent. */
function schedulerOutput(value: unknown): unknown {
  if (typeof value === 'string') return { type: value };
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  copyUnknownFields(out, value, new Set());
  return out;
}

/** A detail-form event kind with its keys in camelCase (values, zones included, untouched). */
function taskEventOutput(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  copyUnknownFields(out, value, new Set());
  return out;
}

/** The ids of the task's event types: the list form's numbers, or the detail form's `events[].id`. */
function eventTypeIdsOf(events: unknown): number[] {
  if (!Array.isArray(events)) return [];
  const ids: number[] = [];
  for (const entry of events) {
    if (typeof entry === 'number') ids.push(entry);
    else if (isRecord(entry) && typeof entry.id === 'number') ids.push(entry.id);
  }
  return ids;
}

/**
 * Whether the service sent the detail form: its `events` are objects, its scheduler an object,
 * or it has the detail-only thresholds (an empty `events` alone does not tell).
 */
function isDetail(raw: Record<string, unknown>): boolean {
  return (
    isRecord(raw.scheduler) ||
    raw.confidence_threshold !== undefined ||
    raw.object_size_filter !== undefined ||
    (Array.isArray(raw.events) && raw.events.some(isRecord))
  );
}

/**
 * The host shape of a task as the service sent it, list or detail form. Pure and total: a field
 * the service left out stays out (`statusParsed` and `eventTypeIds` are always there), a value
 * is never changed. Fields the spec does not describe follow with their top-level key in
 * camelCase; the keys inside `confidenceThreshold` and `objectSizeFilter` are object names
 * (data), so they keep their spelling.
 */
export function taskOutput(task: TaskSummary | TaskDetail): TaskOutput {
  const raw: Record<string, unknown> = isRecord(task) ? task : {};
  const out: Record<string, unknown> = {};
  putDefined(out, 'id', raw.id);
  putDefined(out, 'name', raw.name);
  putDefined(out, 'status', raw.status);
  out.statusParsed = parseTaskStatus(raw.status as string);
  putDefined(out, 'scheduler', schedulerOutput(raw.scheduler));
  out.eventTypeIds = eventTypeIdsOf(raw.events);
  if (Array.isArray(raw.events)) {
    if (isDetail(raw)) out.events = raw.events.map(taskEventOutput);
  } else putDefined(out, 'events', raw.events); // not the spec's: passed on as sent
  putDefined(out, 'locationId', raw.location_id);
  putDefined(out, 'cameraId', raw.camera_id);
  putDefined(out, 'cameraRtsp', raw.camera_rtsp);
  putDefined(out, 'confidenceThreshold', raw.confidence_threshold);
  putDefined(out, 'objectSizeFilter', raw.object_size_filter);
  copyUnknownFields(out, raw, handled);
  return out as TaskOutput;
}
