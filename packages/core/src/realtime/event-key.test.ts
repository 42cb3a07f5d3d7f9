import { describe, expect, it } from 'vitest';
import { normalizeEvent } from '../normalize/normalize-event.js';
import { makeEvent } from './__tests__/make-event.js';
import { eventKey, rawEventKey } from './event-key.js';

describe('eventKey', () => {
  it('uses the record id when the event has one (extended form)', () => {
    expect(eventKey(makeEvent({ id: 42, second: 1 }))).toBe(42);
    expect(eventKey(makeEvent({ id: 42, second: 1, image: 'other' }))).toBe(42);
  });

  it('uses task, event kind, time and media URLs otherwise (basic form)', () => {
    const a = makeEvent({ taskId: 1, second: 1, image: 'x.jpg' });
    const sameContent = makeEvent({ taskId: 1, second: 1, image: 'x.jpg' });
    const otherImage = makeEvent({ taskId: 1, second: 1, image: 'y.jpg' });
    const otherTask = makeEvent({ taskId: 2, second: 1, image: 'x.jpg' });
    const otherSecond = makeEvent({ taskId: 1, second: 2, image: 'x.jpg' });
    expect(eventKey(a)).toBe(eventKey(sameContent));
    expect(new Set([a, otherImage, otherTask, otherSecond].map(eventKey)).size).toBe(4);
  });
});

describe('older-form identity without media', () => {
  // A deployment that stores no media sends empty URLs, and two detections of one kind on one task
  // can share a second (deployment notes): what was detected tells them apart.
  const twin = (box: number[], confidence: number, extra: Record<string, unknown> = {}) => ({
    task_id: 3,
    event_id: 2001,
    event_name: 'person_detected',
    event_description: 'Person detected',
    timestamp: '2024-05-01T08:00:00Z',
    image_url: '',
    video_url: '',
    detected_objects: [
      {
        object_id: '1',
        object_name: 'person',
        coordinates: box,
        confidence_score: confidence,
        warning: false,
      },
    ],
    ...extra,
  });
  const keyOf = (raw: unknown) => {
    const { event } = normalizeEvent(raw);
    if (!event) throw new Error('not an event');
    return eventKey(event);
  };

  it('tells apart two events of one kind on one task in one second with empty URLs', () => {
    const first = keyOf(twin([0.1, 0.1, 0.2, 0.3], 0.9));
    expect(keyOf(twin([0.5, 0.1, 0.6, 0.3], 0.9))).not.toBe(first);
    expect(keyOf(twin([0.1, 0.1, 0.2, 0.3], 0.8))).not.toBe(first);
    expect(keyOf(twin([0.1, 0.1, 0.2, 0.3], 0.9, { license_plate: 'AB-123' }))).not.toBe(first);
  });

  it('is one event on every path: live or history, ISO time or epoch seconds', () => {
    const iso = twin([0.1, 0.1, 0.2, 0.3], 0.9);
    const epoch = { ...iso, timestamp: Date.parse('2024-05-01T08:00:00Z') / 1000 };
    expect(keyOf(epoch)).toBe(keyOf(iso));
    expect(keyOf({ ...iso })).toBe(keyOf(iso));
  });
});

describe('rawEventKey', () => {
  const basic = {
    task_id: 3,
    event_id: 2001,
    event_name: 'person_detected',
    timestamp: '2024-05-01T08:00:00Z',
    image_url: 'https://media.example/1.jpg',
    detected_objects: [],
  };

  it('reads the record id without normalizing, the same key as the normalized event', () => {
    const raw = { ...basic, id: 77 };
    const { event } = normalizeEvent(raw);
    expect(rawEventKey(raw)).toBe(eventKey(event as NonNullable<typeof event>));
  });

  it('leaves the older form (no record id) and unclear ids to the normalized event', () => {
    expect(rawEventKey(basic)).toBeUndefined();
    expect(rawEventKey(null)).toBeUndefined();
    expect(rawEventKey('x')).toBeUndefined();
    expect(rawEventKey({ ...basic, id: '77' })).toBeUndefined();
  });
});
