import { describe, expect, it } from 'vitest';
import { makeEvent } from './__tests__/make-event.js';
import { cursorAt, cursorOf, isAfterCursor } from './cursor.js';

describe('cursor', () => {
  const at10 = makeEvent({ second: 10 }).occurredAt.getTime();

  it('orders by time first', () => {
    expect(isAfterCursor(makeEvent({ second: 11 }), at10, undefined)).toBe(true);
    expect(isAfterCursor(makeEvent({ second: 9 }), at10, undefined)).toBe(false);
  });

  it('within the cursor second, uses the record id when both have one', () => {
    expect(isAfterCursor(makeEvent({ second: 10, id: 5 }), at10, 5)).toBe(false);
    expect(isAfterCursor(makeEvent({ second: 10, id: 6 }), at10, 5)).toBe(true);
  });

  it('within the cursor second and without ids, delivers again rather than risk a loss', () => {
    expect(isAfterCursor(makeEvent({ second: 10 }), at10, undefined)).toBe(true);
    expect(isAfterCursor(makeEvent({ second: 10 }), at10, 5)).toBe(true);
  });

  it('writes cursors in the service timestamp shape', () => {
    expect(cursorOf(makeEvent({ second: 10, id: 3 }))).toEqual({ time: '2024-05-01T08:00:10Z', id: 3 });
    expect(cursorOf(makeEvent({ second: 10 }))).toEqual({ time: '2024-05-01T08:00:10Z' });
    expect(cursorAt(at10 + 999)).toEqual({ time: '2024-05-01T08:00:10Z' });
  });
});
