import type { ObservationEvent } from '../model/observation-event.js';
import { stableHash } from '../stable-hash.js';

/**
 * Identity of an event for dedupe: the record id where the service sends one (extended form; a
 * number, cheap to hash on the hot path), otherwise a string of what makes an older-form event
 * unique (see `contentIdentity`).
 */
export type EventKey = number | string;

export function eventKey(event: ObservationEvent): EventKey {
  if (event.id !== undefined) return event.id;
  return contentIdentity(event);
}

/**
 * The same key read straight from a payload that has a record id, so a catch-up can skip the
 * events it already delivered without normalizing them (most of a catch-up is overlap).
 * Undefined otherwise: the caller normalizes and uses `eventKey` (an older-form identity is made
 * of normalized fields, so that a live frame and a history row of one event agree).
 */
export function rawEventKey(raw: unknown): EventKey | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const id = (raw as Record<string, unknown>).id;
  if (id !== undefined && id !== null && Number.isSafeInteger(id)) return id as number;
  return undefined;
}

/**
 * A stable text identity of one event, for a host's own keys (n8n's execution deduplication):
 * the record id in the extended form, otherwise a hash of what makes a basic-form event unique.
 * The same event gives the same identity on every path, live or from history, in every process.
 */
export function eventIdentity(event: ObservationEvent): string {
  if (event.id !== undefined) return String(event.id);
  return `h${stableHash(contentIdentity(event))}`;
}

/**
 * The identity of a batch: its one event's identity, or a hash of every event's in batch order.
 * A batch regrouped after a restart is a different batch: identical batches share a key, others
 * do not.
 */
export function batchIdentity(events: readonly ObservationEvent[]): string {
  const [only] = events;
  if (events.length === 1 && only !== undefined) return eventIdentity(only);
  return `h${stableHash(events.map((event) => (event.id !== undefined ? String(event.id) : contentIdentity(event))).join(','))}`;
}

/**
 * What makes an older-form event (no record id) unique: its task, kind, second and media URLs,
 * and what was detected (each object's name, box and confidence), the plate and the description.
 * A deployment that stores no media sends empty URLs and two detections of one kind on one task
 * can share a second, so the URLs alone cannot tell them apart; what the camera saw does. Two
 * events equal in all of these are one. The time goes in as milliseconds, not as sent: the same
 * event may come as an ISO string on one path and as epoch seconds on another.
 */
function contentIdentity(event: ObservationEvent): string {
  const objects = event.objects.map(
    (o) => `${o.name}:${o.box.cx},${o.box.cy},${o.box.w},${o.box.h}:${o.confidence}`,
  );
  return [
    event.taskId,
    event.eventTypeId,
    event.occurredAt.getTime(),
    event.imageUrl ?? '',
    event.videoUrl ?? '',
    event.licensePlate ?? '',
    event.eventDescription ?? '',
    objects.join(';'),
  ].join('|');
}
