import type { RealtimeEvent } from './event-model.js';
import type { SubscriptionCursor } from './types.js';

/**
 * Whether an event comes after a persisted cursor. Within the cursor's second the record id
 * decides when both have one (record ids grow with time); without ids the event is delivered
 * again, because a repeat is better than a missed alert.
 */
export function isAfterCursor(event: RealtimeEvent, cursorMs: number, cursorId: number | undefined): boolean {
  const time = event.occurredAt.getTime();
  if (time !== cursorMs) return time > cursorMs;
  if (cursorId !== undefined && event.id !== undefined) return event.id > cursorId;
  return true;
}

/** The cursor of a delivered event. */
export function cursorOf(event: RealtimeEvent): SubscriptionCursor {
  return event.id === undefined ? { time: event.timestamp } : { time: event.timestamp, id: event.id };
}

/** A cursor for a point in time (no id), in the service's timestamp shape. */
export function cursorAt(ms: number): SubscriptionCursor {
  return { time: `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z` };
}
