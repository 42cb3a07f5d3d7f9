import { describe, expect, it } from 'vitest';
import { makeEvent } from './__tests__/make-event.js';
import { eventKey } from './event-key.js';

describe('eventKey', () => {
  it('uses the record id when the event has one (extended form)', () => {
    expect(eventKey(makeEvent({ id: 42, second: 1 }))).toBe('#42');
    expect(eventKey(makeEvent({ id: 42, second: 1, image: 'other' }))).toBe('#42');
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
