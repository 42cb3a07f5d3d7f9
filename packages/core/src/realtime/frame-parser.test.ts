import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors/protocol-error.js';
import { frameEvent, frameJson, parseFrame, parseRecord, sampleLength } from './frame-parser.js';

const valid = {
  task_id: 3,
  event_id: 2001,
  event_name: 'person_detected',
  timestamp: '2024-05-01T08:00:00Z',
  detected_objects: [],
};

describe('parseFrame', () => {
  it('parses text and Buffer frames into normalized events', () => {
    for (const data of [JSON.stringify(valid), Buffer.from(JSON.stringify(valid))]) {
      const parsed = parseFrame(data);
      expect(parsed.ok).toBe(true);
      if (parsed.ok) {
        expect(parsed.event.taskId).toBe(3);
        expect(parsed.raw).toEqual(valid);
      }
    }
  });

  it.each([
    ['not JSON', '{"task_id": 3,', /not JSON/],
    ['not an object', '[1,2,3]', /not a JSON object/],
    ['null', 'null', /not a JSON object/],
    ['a string', '"hello"', /not a JSON object/],
    ['missing fields', '{"task_id": 3}', /not a usable event: .*event_id is missing/],
    ['wrong types', '{"task_id":"x","event_id":{},"event_name":1,"timestamp":false}', /not a usable event/],
  ])('reports %s as a ProtocolError with a sample', (_, text, message) => {
    const parsed = parseFrame(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(ProtocolError.isInstance(parsed.error)).toBe(true);
      expect(parsed.error.message).toMatch(message);
      expect(parsed.error.sample).toBe(text);
    }
  });

  it(`cuts the sample of a huge frame to ${sampleLength} characters`, () => {
    const huge = `{"oops": "${'x'.repeat(1_000_000)}`;
    const parsed = parseFrame(huge);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.sample?.length).toBe(sampleLength);
      expect(parsed.error.message.length).toBeLessThan(300);
    }
  });

  it('survives a record whose fields throw when read (a host-made proxy or getter)', () => {
    const hostile = { ...valid };
    Object.defineProperty(hostile, 'task_id', {
      enumerable: true,
      get() {
        throw new Error('bug');
      },
    });
    const parsed = parseRecord(hostile, 'a history event');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.message).toMatch(/bug/);
  });

  it('checks history records the same way', () => {
    expect(parseRecord(valid, 'a history event').ok).toBe(true);
    const bad = parseRecord(42, 'a history event');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.sample).toBe('42');
  });
});

describe('parseFrame, fuzzed', () => {
  it('never throws; anything it refuses comes back as a ProtocolError with a short sample', () => {
    const frames = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.json(),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc
        .record({
          task_id: fc.anything(),
          event_id: fc.anything(),
          event_name: fc.anything(),
          timestamp: fc.anything(),
        })
        .map((value) => JSON.stringify(value) ?? ''),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    );
    fc.assert(
      fc.property(frames, (frame) => {
        const parsed = parseFrame(frame);
        if (parsed.ok) {
          expect(parsed.event.taskId).toEqual(expect.any(Number));
        } else {
          expect(ProtocolError.isInstance(parsed.error)).toBe(true);
          expect(parsed.error.sample?.length ?? 0).toBeLessThanOrEqual(sampleLength);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('the live path (frameJson, then frameEvent)', () => {
  /** What the live path makes of a frame, in parseFrame's terms. */
  function live(frame: unknown): ReturnType<typeof parseFrame> {
    const raw = frameJson(frame);
    const event = raw instanceof ProtocolError ? raw : frameEvent(raw, frame);
    return event instanceof ProtocolError ? { ok: false, error: event } : { ok: true, event, raw };
  }

  it('gives what parseFrame gives, for every frame, usable or not', () => {
    const frames = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.json(),
      // Spaced out, so a sample of the frame's own text differs from one of its value.
      fc.jsonValue().map((value) => JSON.stringify(value, null, 1)),
      fc.constant(JSON.stringify(valid)),
      fc
        .record({
          task_id: fc.oneof(fc.anything(), fc.integer()),
          event_id: fc.oneof(fc.anything(), fc.integer()),
          event_name: fc.oneof(fc.anything(), fc.string()),
          timestamp: fc.oneof(fc.anything(), fc.constant('2024-05-01T08:00:00Z')),
        })
        .map((value) => JSON.stringify(value) ?? ''),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
      fc.constant(42),
    );
    let usable = 0;
    fc.assert(
      fc.property(frames, (frame) => {
        const expected = parseFrame(frame);
        const actual = live(frame);
        expect(actual.ok).toBe(expected.ok);
        if (actual.ok && expected.ok) {
          usable++;
          expect(actual.event).toStrictEqual(expected.event);
          expect(actual.raw).toStrictEqual(expected.raw);
        } else if (!actual.ok && !expected.ok) {
          expect(actual.error.message).toBe(expected.error.message);
          expect(actual.error.sample).toBe(expected.error.sample);
        }
      }),
      { numRuns: 2_000 },
    );
    // The property saw both kinds of frame.
    expect(usable).toBeGreaterThan(0);
  });
});
