import type { EventMeta, ObservationEvent } from '@observation-service/core';
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
