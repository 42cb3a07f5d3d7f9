import { describe, expect, it } from 'vitest';
import { localTime } from '../src/lib/local-time.js';
import { readEvent } from '../src/lib/read-event.js';
import { parseSettings } from '../src/lib/settings.js';

const event = {
  eventName: 'person_in_zone',
  taskId: 3,
  timestamp: '2026-11-23T01:02:03Z',
  occurredAt: new Date('2026-11-23T01:02:03Z'),
  objects: [],
};

describe('reading an observation events message', () => {
  it('takes the event, the attached annotated image and names set by the flow', () => {
    const input = readEvent({
      payload: event,
      annotated: Buffer.from([1, 2, 3]),
      annotatedContentType: 'image/png',
      cameraName: 'Gate',
    });
    expect(input.event.eventName).toBe('person_in_zone');
    expect(input.annotated?.data.length).toBe(3);
    expect(input.names).toEqual({ cameraName: 'Gate' });
  });

  it('flags a snapshot the events node waited for in vain (msg.missingImages), not one the event never had', () => {
    const withUrl = { ...event, imageUrl: 'https://nvr.example/media/snapshots/7.png' };
    expect(readEvent({ payload: withUrl, missingImages: ['snapshot', 'annotated'] }).snapshotMissing).toBe(
      true,
    );
    expect(readEvent({ payload: withUrl, missingImages: ['annotated'] }).snapshotMissing).toBe(true);
    expect(readEvent({ payload: withUrl }).snapshotMissing).toBe(false);
    // Attached after all (only the plain snapshot was missing): shown.
    expect(
      readEvent({ payload: withUrl, missingImages: ['snapshot'], annotated: Buffer.from([1]) })
        .snapshotMissing,
    ).toBe(false);
    // No snapshot URL: nothing was missed, the card is one without a snapshot.
    expect(readEvent({ payload: event, missingImages: ['snapshot', 'annotated'] }).snapshotMissing).toBe(
      false,
    );
  });

  it('reads the time after a JSON round trip (occurredAt as text)', () => {
    const input = readEvent({ payload: JSON.parse(JSON.stringify(event)) });
    expect(input.occurredAt.toISOString()).toBe('2026-11-23T01:02:03.000Z');
  });

  it.each([
    [{ payload: 'hello' }, /msg\.payload must be an event .* got "hello"/],
    [{ payload: { ...event, eventName: 7 } }, /msg\.payload\.eventName must be a string; got number 7/],
    [{ payload: { ...event, taskId: '3' } }, /msg\.payload\.taskId must be a number; got "3"/],
    [
      { payload: { ...event, occurredAt: 'soon', timestamp: undefined } },
      /msg\.payload\.occurredAt must be a date or ISO 8601 text; got "soon"/,
    ],
    [{ payload: event, annotated: 'png' }, /msg\.annotated must be the image Buffer .* got "png"/],
    [{ payload: event, cameraName: 5 }, /msg\.cameraName must be a string; got number 5/],
    [
      { payload: event, missingImages: 'snapshot' },
      /msg\.missingImages must be the list of image names .* got "snapshot"/,
    ],
  ])('refuses %j naming the property', (msg, message) => {
    expect(() => readEvent(msg)).toThrow(message);
  });
});

describe('the time in the event’s own timezone', () => {
  it('shows the wall-clock time of the zone, and UTC for none or an unknown zone', () => {
    const instant = new Date('2026-11-23T01:02:03Z');
    expect(localTime(instant, 'Asia/Tokyo')).toEqual({ text: '2026-11-23 10:02:03', timezone: 'Asia/Tokyo' });
    expect(localTime(instant, 'America/New_York')).toEqual({
      text: '2026-11-22 20:02:03',
      timezone: 'America/New_York',
    });
    expect(localTime(instant, undefined)).toEqual({ text: '2026-11-23 01:02:03', timezone: 'UTC' });
    expect(localTime(instant, 'Mars/Olympus')).toEqual({ text: '2026-11-23 01:02:03', timezone: 'UTC' });
  });
});

describe('gallery settings', () => {
  it('defaults and accepts whole numbers in range', () => {
    expect(parseSettings({})).toEqual({ maxCards: 24, maxImageBytes: 64 * 1024 * 1024 });
    expect(parseSettings({ maxCards: '200', maxImageMegabytes: 1 })).toEqual({
      maxCards: 200,
      maxImageBytes: 1024 * 1024,
    });
  });

  it.each([
    [{ maxCards: 0 }, 'maxCards must be a whole number from 1 to 200; got 0'],
    [{ maxCards: '2.5' }, 'maxCards must be a whole number from 1 to 200; got "2.5"'],
    [{ maxImageMegabytes: 'lots' }, 'maxImageMegabytes must be a whole number from 1 to 1024; got "lots"'],
  ])('refuses %j naming the field', (config, message) => {
    expect(() => parseSettings(config)).toThrow(message);
  });
});
