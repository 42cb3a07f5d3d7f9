import { ValidationError } from '../errors/validation-error.js';
import type { DetectedObject, ObservationEvent } from '../model/observation-event.js';
import { describeValue } from '../validation/describe-value.js';

/**
 * The event filters both hosts offer (n8n trigger, Node-RED events node). It lives in core so
 * "person at 0.8" means the same thing in both.
 */
export interface EventFilter {
  /** Event names to keep (exact, e.g. `person_in_zone`); empty keeps every name. */
  eventNames: string[];
  /** Object names (case-insensitive); empty means any object kind. */
  objectNames: string[];
  /** 0..1; an object must be detected at least this sure. */
  minConfidence: number | undefined;
  /** Keep only events with an object in warning state. */
  warningsOnly: boolean;
}

/** What a user typed: comma-separated text or lists, a number or numeric text, a flag. */
export interface EventFilterInput {
  eventNames?: string | readonly string[] | undefined;
  objectNames?: string | readonly string[] | undefined;
  minConfidence?: string | number | null | undefined;
  warningsOnly?: boolean | string | undefined;
}

function nameList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  const parts = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (parts === undefined || parts.some((part) => typeof part !== 'string')) {
    throw new ValidationError(field, describeValue(value), 'names as comma-separated text or a list of text');
  }
  return [...new Set((parts as string[]).map((part) => part.trim()).filter((part) => part !== ''))];
}

function confidence(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    return undefined;
  }
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : Number.NaN;
  if (!Number.isFinite(n) || n < 0 || n > 1) {
    throw new ValidationError(field, describeValue(value), 'a number from 0 to 1 (e.g. 0.8)');
  }
  return n;
}

/** The field each filter is typed into, as the host's editor labels it. */
export type EventFilterLabels = Partial<Record<'eventNames' | 'objectNames' | 'minConfidence', string>>;

/**
 * Parses and validates what a user typed; errors name the field (by `labels`, the host's editor
 * labels, else core's option name), the value and what is allowed.
 */
export function parseEventFilter(input: EventFilterInput = {}, labels: EventFilterLabels = {}): EventFilter {
  return {
    eventNames: nameList(input.eventNames, labels.eventNames ?? 'eventNames'),
    objectNames: nameList(input.objectNames, labels.objectNames ?? 'objectNames').map((name) =>
      name.toLowerCase(),
    ),
    minConfidence: confidence(input.minConfidence, labels.minConfidence ?? 'minConfidence'),
    warningsOnly: input.warningsOnly === true || input.warningsOnly === 'true',
  };
}

/**
 * True when the event passes: its name is listed (when names are given) and, when any object
 * condition is set, ONE detected object meets all of them together (name, confidence,
 * warning): "person at 0.8" means a person seen at 0.8, not a person plus some other sure object.
 */
export function matchesEventFilter(event: ObservationEvent, filter: EventFilter): boolean {
  if (filter.eventNames.length > 0 && !filter.eventNames.includes(event.eventName)) return false;
  const objects = matchingObjects(event, filter);
  return objects === undefined || objects.length > 0;
}

/**
 * The detected objects that meet every object condition of the filter, surest first: what an
 * alert should name ("person 82 %", not the first person listed at 47 %). Undefined when the
 * filter sets no object condition (every object passes, none in particular).
 */
export function matchingObjects(event: ObservationEvent, filter: EventFilter): DetectedObject[] | undefined {
  const objectConditions =
    filter.objectNames.length > 0 || filter.minConfidence !== undefined || filter.warningsOnly;
  if (!objectConditions) return undefined;
  return event.objects
    .filter(
      (object) =>
        (filter.objectNames.length === 0 || filter.objectNames.includes(object.name.toLowerCase())) &&
        (filter.minConfidence === undefined || object.confidence >= filter.minConfidence) &&
        (!filter.warningsOnly || object.warning),
    )
    .sort((a, b) => b.confidence - a.confidence);
}
