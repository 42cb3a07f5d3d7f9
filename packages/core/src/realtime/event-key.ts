import type { RealtimeEvent } from './event-model.js';

/**
 * Identity of an event for dedupe: the record id where the service sends one (extended form),
 * otherwise what makes a basic-form event unique (task, event kind, time, media URLs).
 */
export function eventKey(event: RealtimeEvent): string {
  if (event.id !== undefined) return `#${event.id}`;
  return `${event.taskId}|${event.eventId}|${event.timestamp}|${event.imageUrl ?? ''}|${event.videoUrl ?? ''}`;
}
