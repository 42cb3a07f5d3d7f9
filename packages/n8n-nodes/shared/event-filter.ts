import type { ObservationEvent } from '@observation-service/core';

/** What the trigger's Filters collection asks for; every part is optional. */
export interface EventFilter {
  eventNames?: string[];
  /** 0..1: at least one object at or above this confidence. */
  minConfidence?: number;
  /** At least one object with one of these names (case-insensitive). */
  objectNames?: string[];
  warningsOnly?: boolean;
}

/**
 * Decides on core's normalized fields (`eventName`, `maxConfidence`, `objects`, `hasWarning`),
 * so it holds no knowledge of the service's payloads.
 */
export function matchesFilter(event: ObservationEvent, filter: EventFilter): boolean {
  if (filter.eventNames && filter.eventNames.length > 0 && !filter.eventNames.includes(event.eventName)) {
    return false;
  }
  if (filter.warningsOnly && !event.hasWarning) return false;
  const names = filter.objectNames?.map((name) => name.toLowerCase());
  const minConfidence = filter.minConfidence ?? 0;
  if ((names && names.length > 0) || minConfidence > 0) {
    return event.objects.some(
      (object) =>
        object.confidence >= minConfidence &&
        (!names || names.length === 0 || names.includes(object.name.toLowerCase())),
    );
  }
  return true;
}
