import type { ObservationEvent } from '../../model/observation-event.js';

/** A minimal normalized event for unit tests of ordering and dedupe (no socket involved). */
export function makeEvent(fields: {
  taskId?: number;
  id?: number;
  second: number;
  image?: string;
}): ObservationEvent {
  const occurredAt = new Date(Date.UTC(2024, 4, 1, 8, 0, fields.second));
  const event: ObservationEvent = {
    taskId: fields.taskId ?? 1,
    eventTypeId: 2001,
    eventName: 'person_detected',
    timestamp: `${occurredAt.toISOString().slice(0, 19)}Z`,
    occurredAt,
    imageUrl: fields.image ?? `https://media.example/${fields.taskId ?? 1}/${fields.second}.jpg`,
    objects: [],
    objectNames: [],
    maxConfidence: 0,
    hasWarning: false,
    form: fields.id === undefined ? 'basic' : 'extended',
    extra: {},
  };
  if (fields.id !== undefined) event.id = fields.id;
  return event;
}
