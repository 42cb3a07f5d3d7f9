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

describe('rawEventKey', () => {
  const basic = {
    task_id: 3,
    event_id: 2001,
    event_name: 'person_detected',
    timestamp: '2024-05-01T08:00:00Z',
    image_url: 'https://media.example/1.jpg',
    detected_objects: [],
  };

  it('matches the key of the normalized event, in both forms', () => {
    for (const raw of [basic, { ...basic, id: 77 }, { ...basic, image_url: null, video_url: 'v.mp4' }]) {
      const { event } = normalizeEvent(raw);
      expect(event).toBeDefined();
      expect(rawEventKey(raw)).toBe(eventKey(event as NonNullable<typeof event>));
    }
  });

  it('gives up on payloads it cannot key with certainty', () => {
    expect(rawEventKey(null)).toBeUndefined();
    expect(rawEventKey('x')).toBeUndefined();
    expect(rawEventKey({ ...basic, id: '77' })).toBeUndefined();
    expect(rawEventKey({ ...basic, task_id: '3' })).toBeUndefined();
    expect(rawEventKey({ ...basic, image_url: 5 })).toBeUndefined();
  });
});
