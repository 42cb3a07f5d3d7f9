import { normalizeEvent } from '@observation-service/core';
import { describe, expect, test } from 'vitest';
import { eventToJson } from '../shared/event-json';

const payload = {
  id: 7,
  task_id: 3,
  event_id: 12,
  event_name: 'Person in zone',
  timestamp: '2026-11-25 10:00:01',
  detected_objects: [
    { object_id: '1', object_name: 'person', coordinates: [0.5, 0.5, 0.1, 0.2], confidence_score: 0.9 },
  ],
  camera_id: 4,
};

function eventOf(raw: Record<string, unknown>) {
  const { event } = normalizeEvent(raw);
  if (!event) throw new Error('the test payload did not normalize');
  return event;
}

describe('eventToJson (the output item of one event)', () => {
  test('is the event with occurredAt as ISO text, and no extra when the service sent none', () => {
    const event = eventOf(payload);
    const json = eventToJson(event);
    expect(json.occurredAt).toBe(event.occurredAt.toISOString());
    expect('extra' in json).toBe(false);
    const { extra: _extra, occurredAt: _at, ...rest } = event;
    expect(json).toEqual({ ...rest, occurredAt: event.occurredAt.toISOString() });
    // Already JSON: a round trip changes nothing.
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    // The event itself is left as it was.
    expect(event.occurredAt).toBeInstanceOf(Date);
    expect(event.extra).toEqual({});
  });

  test('keeps the fields the spec does not describe in extra, last', () => {
    const event = eventOf({ ...payload, site_code: 'north-7', shift: { lead: 'A' } });
    const json = eventToJson(event);
    expect(json.extra).toEqual({ site_code: 'north-7', shift: { lead: 'A' } });
    expect(Object.keys(json).at(-1)).toBe('extra');
    expect(json.cameraId).toBe(4);
  });
});
