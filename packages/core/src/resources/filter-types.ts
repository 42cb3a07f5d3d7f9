import type { IdInput } from '../validation/parse-id.js';
import type { IdListInput } from '../validation/parse-id-list.js';
import type { TimeInput } from '../validation/parse-time.js';

/** Filters of `GET /events/history`. The spec's snake_case names are accepted as aliases. */
export interface HistoryFilters {
  startTime?: TimeInput;
  endTime?: TimeInput;
  eventName?: string;
  taskId?: IdInput;
  /** The event type's id, as an event carries it (`eventTypeId`). Extended form. */
  eventTypeId?: IdInput;
  /** @deprecated The former name of `eventTypeId`, still accepted. */
  eventId?: IdInput;
  /** Extended form. */
  locationId?: IdInput;
  /** Extended form. */
  cameraId?: IdInput;
  /** Record ids (extended form); sent comma-separated. */
  ids?: IdListInput;
  offset?: number | string;
  /** Page size; clamped to the form's maximum (100 extended, 10000 basic). */
  limit?: number | string;
}

/** Filters of `GET /locations`. */
export interface LocationFilters {
  organizationId?: IdInput;
  /** Newer deployments; sent comma-separated. */
  ids?: IdListInput;
  offset?: number | string;
  limit?: number | string;
}

/** Filters of `GET /tasks`. */
export interface TaskFilters {
  locationId?: IdInput;
  cameraId?: IdInput;
  /** Newer deployments; sent comma-separated. */
  ids?: IdListInput;
  offset?: number | string;
  limit?: number | string;
}
