import { ValidationError } from '@observation-service/core/portable';
import { credentialField } from '../../shared/credential-labels';

/**
 * The Observation node's fields by core's parameter names. Most ids are checked in the node with
 * their label already (parseId(value, 'Task')); these are the values core checks itself.
 */
const nodeFields: Record<string, string> = {
  startTime: 'Start Time',
  endTime: 'End Time',
  eventName: 'Event Name',
  taskId: 'Task',
  eventTypeId: 'Event Type',
  locationId: 'Location',
  cameraId: 'Camera ID',
  ids: 'Event Record IDs',
  organizationId: 'Organization ID',
  limit: 'Limit',
  format: 'Format',
  labels: 'Labels',
  lineWidth: 'Line Width (Px)',
  objects: 'Event',
  image: 'Event',
};

/** Where an operation's media URL comes from: the URL field, or the Event's imageUrl. */
const mediaUrlFields: Record<string, string> = {
  downloadSnapshot: 'Snapshot URL',
  downloadClip: 'Clip URL',
  annotatedSnapshot: 'Event',
};

/** The field a media operation's URL comes from, for "check the …". */
export function mediaUrlField(operation: string): string {
  const field = mediaUrlFields[operation] ?? 'Event';
  return field === 'Event' ? "Event's imageUrl" : field;
}

/**
 * A ValidationError named by the field the user filled in (core's wording of what was given and
 * what is allowed is kept), so no internal name (`startTime`, `imageUrl`, `url`) reaches the user.
 */
export function withFieldLabel(error: unknown, operation: string): unknown {
  if (!ValidationError.isInstance(error)) return error;
  const name = error.parameter.replace(/\[\d+\]$/, '');
  const index = error.parameter.slice(name.length);
  const media = ['imageUrl', 'videoUrl', 'url'].includes(name) ? mediaUrlFields[operation] : undefined;
  const label = media ?? nodeFields[name] ?? credentialField(name);
  return label === undefined ? error : new ValidationError(`${label}${index}`, error.given, error.allowed);
}
