import { ValidationError } from '@observation-service/core';
import type { Translate } from './events-status.js';

/**
 * Core names a refused value by its own parameter name (`startTime`, `url`, `trustedMediaOrigins`);
 * the user sees the field of the editor dialog. These maps give the label key of each, per dialog;
 * an entry of a list (`ids[2]`) is its field's.
 */
const queryFields: Record<string, string> = {
  startTime: 'startTime',
  endTime: 'endTime',
  eventName: 'eventName',
  taskId: 'taskId',
  eventId: 'eventId',
  // Core's name of the history filter; the dialog's field is Event type id all the same.
  eventTypeId: 'eventId',
  locationId: 'locationId',
  cameraId: 'cameraId',
  organizationId: 'organizationId',
  ids: 'ids',
  limit: 'limit',
  offset: 'offset',
  url: 'source',
  imageUrl: 'source',
  videoUrl: 'source',
  image: 'source',
  objects: 'objects',
  format: 'format',
  waitMs: 'mediaWait',
};

const serverFields: Record<string, string> = {
  url: 'url',
  wsUrl: 'wsUrl',
  serviceId: 'serviceId',
  form: 'form',
  trustedMediaOrigins: 'trustedMediaHosts',
  auth: 'authType',
  'auth.token': 'token',
  'auth.email': 'email',
  'auth.password': 'password',
};

/** `objects[2].box` → `objects`; `ids[1]` → `ids`. */
function baseName(parameter: string): string {
  return parameter.replace(/[[.].*$/, '');
}

function relabel(error: ValidationError, label: string): ValidationError {
  return new ValidationError(label, error.given, error.allowed);
}

/**
 * A ValidationError of a server config node's setting, named by its field and the config node it
 * lives in ("Service URL of the server config "site A""); anything else as it was.
 */
export function withServerField(error: unknown, serverName: string, t: Translate): unknown {
  if (!ValidationError.isInstance(error)) return error;
  const key = serverFields[error.parameter.replace(/\[\d+\]$/, '')];
  if (key === undefined) return error;
  const field = t(`observation-server.label.${key}`);
  const label = t('observation-server.errors.fieldOf', { field, name: serverName });
  if (!credentialFields.has(key)) return relabel(error, label);
  // Core states what its auth option takes ({ token } or { email, password } …), words of its
  // API: the user has a dialog field to fill, in the credentials Node-RED keeps apart.
  // The fields are text inputs, so core refuses only an empty one (a password's value it hides).
  const given =
    key === 'password' || /empty|undefined|null|blank/.test(error.given)
      ? t('observation-server.errors.nothing')
      : error.given;
  return new ValidationError(label, given, t('observation-server.errors.credentialAllowed', { field }));
}

/** The config node's credentials (and the choice between them): not in flows.json, not exported. */
const credentialFields = new Set(['authType', 'token', 'email', 'password']);

/** A ValidationError of a query parameter, named by the query node's field; anything else as it was. */
export function withQueryField(error: unknown, t: Translate): unknown {
  if (!ValidationError.isInstance(error)) return error;
  const key = queryFields[baseName(error.parameter)];
  return key === undefined ? error : relabel(error, t(`observation-query.label.${key}`));
}

const taskWatchFields: Record<string, string> = {
  intervalSeconds: 'interval',
  intervalMs: 'interval',
  taskIds: 'taskIds',
  tasks: 'tasks',
};

/** A ValidationError of a task status node's setting, named by its field; anything else as it was. */
export function withTaskWatchField(error: unknown, t: Translate): unknown {
  if (!ValidationError.isInstance(error)) return error;
  const key = taskWatchFields[baseName(error.parameter)];
  const index = error.parameter.slice(baseName(error.parameter).length);
  return key === undefined ? error : relabel(error, `${t(`observation-task-watch.label.${key}`)}${index}`);
}

/**
 * The events node's fields by their config property, and the core option each feeds (a filter or
 * a number core checks itself), to the editor's label key.
 */
const eventsFields: Record<string, string> = {
  tasks: 'taskMode',
  taskIds: 'taskIds',
  eventNames: 'eventNames',
  objectNames: 'objectNames',
  minConfidence: 'minConfidence',
  lookBackMinutes: 'lookBack',
  lookBackMs: 'lookBack',
  maxLookBackMs: 'lookBack',
  allowedLateness: 'allowedLateness',
  allowedLatenessMs: 'allowedLateness',
  mediaWait: 'mediaWait',
  waitMs: 'mediaWait',
  maxInFlight: 'maxInFlight',
  cooldownMinutes: 'cooldown',
  cooldownPer: 'cooldownPer',
  cooldown: 'cooldown',
  ackRetry: 'ackRetry',
  ackRetryPauses: 'ackRetryPauses',
};

/**
 * A ValidationError of an events node's setting, named by its field; anything else as it was.
 * Core names its own options `options.allowedLatenessMs`, `options.media.waitMs`.
 */
export function withEventsField(error: unknown, t: Translate): unknown {
  if (!ValidationError.isInstance(error)) return error;
  const name = error.parameter.replace(/^options\.(media\.)?/, '');
  const base = baseName(name);
  const key = eventsFields[base];
  return key === undefined
    ? error
    : relabel(error, `${t(`observation-events.label.${key}`)}${name.slice(base.length)}`);
}
