import type { ObservationEvent } from '@observation-service/core';

/**
 * The events node's filters. NOTE: this belongs in core (the n8n trigger offers the same
 * filters); it stays here, small and over core's normalized fields only, until core exports one.
 */
export interface EventFilter {
  eventNames: string[];
  objectNames: string[];
  minConfidence: number | undefined;
  warningsOnly: boolean;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

export function parseEventFilter(config: {
  eventNames?: string;
  objectNames?: string;
  minConfidence?: string | number;
  warningsOnly?: boolean;
}): EventFilter {
  let minConfidence: number | undefined;
  if (config.minConfidence !== undefined && String(config.minConfidence).trim() !== '') {
    const value = Number(config.minConfidence);
    if (!Number.isFinite(value) || value < 0 || value > 1) {
      throw new RangeError(
        `minConfidence: "${String(config.minConfidence)}" is not allowed; use a number from 0 to 1`,
      );
    }
    minConfidence = value;
  }
  return {
    eventNames: list(config.eventNames),
    objectNames: list(config.objectNames),
    minConfidence,
    warningsOnly: config.warningsOnly === true,
  };
}

/**
 * True when the event passes: its name is listed (if names are given) and, when any object
 * condition is set, at least one detected object meets all of them together (name, confidence,
 * warning), so "person at 0.8" means one person seen at 0.8, not a person and some other object.
 */
export function matchesEventFilter(event: ObservationEvent, filter: EventFilter): boolean {
  if (filter.eventNames.length > 0 && !filter.eventNames.includes(event.eventName)) return false;
  const objectConditions =
    filter.objectNames.length > 0 || filter.minConfidence !== undefined || filter.warningsOnly;
  if (!objectConditions) return true;
  return event.objects.some(
    (object) =>
      (filter.objectNames.length === 0 || filter.objectNames.includes(object.name)) &&
      (filter.minConfidence === undefined || object.confidence >= filter.minConfidence) &&
      (!filter.warningsOnly || object.warning),
  );
}
