import type { EventMeta, GivenUp, ObservationEvent } from '@observation-service/core';
import type { Translate } from './events-status.js';
import type { NodeMessage } from './node-red-api.js';

/**
 * The message of one event: the event as core normalized it, with its ids on top for switch
 * nodes (`msg.eventTypeId`, the event type, is what a query node's Event type id reads), and the images core prepared. An image that did not come is named in
 * `msg.missingImages` (core reported why, once, through onError). With object filters set,
 * `msg.matched` holds the objects that met them, surest first.
 */
export function eventMessage(event: ObservationEvent, meta: EventMeta): NodeMessage {
  const msg: NodeMessage = {
    payload: event,
    topic: event.eventName,
    taskId: event.taskId,
    eventTypeId: event.eventTypeId,
    ...(event.locationId === undefined ? {} : { locationId: event.locationId }),
    ...(event.cameraId === undefined ? {} : { cameraId: event.cameraId }),
    source: meta.source,
  };
  // The objects the node's filter let the event through for, surest first: what an alert names.
  if (meta.matched) msg.matched = meta.matched;
  // Handed over again ("when the flow is done", failed or late, retry): which delivery this is.
  if (meta.attempt > 1) msg.attempt = meta.attempt;
  // Cooldown on: the key it passed for and how many of that key core held back since the last one.
  if (meta.cooldown) msg.cooldown = { ...meta.cooldown };
  const media = meta.media;
  if (!media) return msg;
  if (media.snapshot) {
    msg.snapshot = media.snapshot.data;
    msg.snapshotContentType = media.snapshot.contentType;
  }
  if (media.annotated) {
    msg.annotated = media.annotated.data;
    msg.annotatedContentType = media.annotated.contentType;
  }
  if (media.missing.length > 0) msg.missingImages = [...media.missing];
  return msg;
}

/** How the event is named in a log line: its record id, or (basic form) its task and time. */
function eventName(event: ObservationEvent): string {
  return event.id === undefined
    ? `${event.eventName} of task ${event.taskId} at ${event.timestamp}`
    : String(event.id);
}

/** The error core gave up with, as text (a late event has none). */
function lastError(given: GivenUp): string | undefined {
  return given.error ? given.error.message : undefined;
}

/**
 * The second output's message for an event core gave up on: the event's message as the first
 * output sent it, plus `msg.givenUp` (why, how many attempts, when the first failed, when core gave
 * up, the last error), so a flow can keep it (a file, a queue) and send it again later.
 */
export function givenUpMessage(event: ObservationEvent, meta: EventMeta, given: GivenUp): NodeMessage {
  const msg = eventMessage(event, meta);
  const error = lastError(given);
  msg.givenUp = {
    reason: given.reason,
    attempts: given.attempts,
    firstFailedAt: given.firstFailedAt.toISOString(),
    gaveUpAt: given.gaveUpAt.toISOString(),
    ...(error === undefined ? {} : { error }),
  };
  return msg;
}

/** The one log line per given-up event: which, after how many attempts, why, and where it went. */
export function givenUpText(event: ObservationEvent, given: GivenUp, output: boolean, t: Translate): string {
  const error = lastError(given);
  return t(output ? 'observation-events.givenUp.logOutput' : 'observation-events.givenUp.logOnly', {
    event: eventName(event),
    attempts: given.attempts,
    first: given.firstFailedAt.toISOString(),
    reason: error ?? t('observation-events.givenUp.late'),
  });
}
