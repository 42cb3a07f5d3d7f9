import type { ObservationEvent } from '../model/observation-event.js';
import { timestampMs } from '../normalize/read-timestamp.js';
import { stableHash } from '../stable-hash.js';

/**
 * Identity of an event for dedupe: the record id where the service sends one (extended form; a
 * number, cheap to hash on the hot path), otherwise a string of what makes a basic-form event
 * unique (task, event kind, time, media URLs).
 */
export type EventKey = number | string;

export function eventKey(event: ObservationEvent): EventKey {
  if (event.id !== undefined) return event.id;
  return contentKey(event.taskId, event.eventId, event.occurredAt.getTime(), event.imageUrl, event.videoUrl);
}

/**
 * The same key read straight from a well-typed payload, so a catch-up can skip the events it
 * already delivered without normalizing them (most of a catch-up is overlap). Undefined when the
 * payload is not clean enough to be sure; the caller then normalizes and uses `eventKey`.
 */
export function rawEventKey(raw: unknown): EventKey | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const record = raw as Record<string, unknown>;
  const id = record.id;
  if (id !== undefined && id !== null) return Number.isSafeInteger(id) ? (id as number) : undefined;
  const { task_id: taskId, event_id: eventId, timestamp, image_url: image, video_url: video } = record;
  if (!Number.isSafeInteger(taskId) || !Number.isSafeInteger(eventId)) return undefined;
  const ms = timestampMs(timestamp);
  if (ms === undefined || !isOptionalText(image) || !isOptionalText(video)) return undefined;
  return contentKey(taskId as number, eventId as number, ms, image ?? undefined, video ?? undefined);
}

/**
 * The time goes in as milliseconds, not as sent: the same event may come as an ISO string on one
 * path and as epoch seconds on another, and must have one identity.
 */
function contentKey(taskId: number, eventId: number, timeMs: number, image?: string, video?: string): string {
  return `${taskId}|${eventId}|${timeMs}|${image ?? ''}|${video ?? ''}`;
}

function isOptionalText(value: unknown): value is string | undefined | null {
  return value === undefined || value === null || typeof value === 'string';
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

function contentIdentity(event: ObservationEvent): string {
  return [
    event.taskId,
    event.eventId,
    event.occurredAt.toISOString(),
    event.imageUrl ?? '',
    event.videoUrl ?? '',
  ].join('|');
}
