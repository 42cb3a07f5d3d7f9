import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { normalizeEvent } from '../normalize/normalize-event.js';
import { matchesEventFilter, matchingObjects, parseEventFilter } from './event-filter.js';

function event(
  objects: Array<{ name: string; confidence: number; warning: boolean }>,
  name = 'person_in_zone',
) {
  const { event: normalized } = normalizeEvent({
    task_id: 1,
    event_id: 2001,
    event_name: name,
    timestamp: '2026-11-21T10:00:00Z',
    detected_objects: objects.map((object, index) => ({
      object_id: String(index),
      object_name: object.name,
      coordinates: [0.5, 0.5, 0.1, 0.1],
      confidence_score: object.confidence,
      warning: object.warning,
    })),
  });
  if (!normalized) throw new Error('fixture did not normalize');
  return normalized;
}

describe('parseEventFilter', () => {
  it('reads comma-separated text, trims, drops empties and duplicates', () => {
    expect(parseEventFilter({ eventNames: ' person_in_zone, ,smoke_detected,person_in_zone' })).toEqual({
      eventNames: ['person_in_zone', 'smoke_detected'],
      objectNames: [],
      minConfidence: undefined,
      warningsOnly: false,
    });
  });

  it('accepts lists, numeric text and the text flag from host forms', () => {
    const filter = parseEventFilter({ objectNames: ['Person'], minConfidence: '0.75', warningsOnly: 'true' });
    expect(filter).toEqual({
      eventNames: [],
      objectNames: ['person'],
      minConfidence: 0.75,
      warningsOnly: true,
    });
  });

  it.each([['1.5'], [-0.1], ['high'], [Number.NaN]])(
    'refuses minConfidence %s naming field and range',
    (value) => {
      const error = (() => {
        try {
          parseEventFilter({ minConfidence: value });
        } catch (caught) {
          return caught;
        }
      })();
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as ValidationError).parameter).toBe('minConfidence');
      expect((error as ValidationError).message).toContain('a number from 0 to 1');
    },
  );

  it('names each field by the label the host gives it', () => {
    const labels = {
      eventNames: 'Event Names',
      objectNames: 'Object Names',
      minConfidence: 'Minimum Confidence',
    };
    const refused = (input: Record<string, unknown>) => {
      try {
        parseEventFilter(input, labels);
      } catch (caught) {
        return (caught as ValidationError).message;
      }
      return 'accepted';
    };
    expect(refused({ minConfidence: 'high' })).toMatch(/^Invalid Minimum Confidence: got "high"/);
    expect(refused({ eventNames: 7 })).toMatch(/^Invalid Event Names: got number 7/);
    expect(refused({ objectNames: [1] })).toMatch(/^Invalid Object Names/);
  });

  it('throws nothing but ValidationError for any input', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (eventNames, objectNames, minConfidence) => {
        try {
          parseEventFilter({ eventNames, objectNames, minConfidence } as never);
        } catch (error) {
          expect(ValidationError.isInstance(error)).toBe(true);
        }
      }),
    );
  });
});

describe('matchesEventFilter', () => {
  const people = event([
    { name: 'person', confidence: 0.6, warning: true },
    { name: 'car', confidence: 0.95, warning: false },
  ]);

  it('keeps everything when no condition is set', () => {
    expect(matchesEventFilter(people, parseEventFilter())).toBe(true);
    expect(matchesEventFilter(event([]), parseEventFilter())).toBe(true);
  });

  it('filters by event name', () => {
    expect(matchesEventFilter(people, parseEventFilter({ eventNames: 'smoke_detected' }))).toBe(false);
    expect(
      matchesEventFilter(people, parseEventFilter({ eventNames: 'smoke_detected,person_in_zone' })),
    ).toBe(true);
  });

  it('needs ONE object to meet name, confidence and warning together', () => {
    // The person is in warning but only 0.6 sure; the car is sure but not a person.
    expect(matchesEventFilter(people, parseEventFilter({ objectNames: 'person', minConfidence: 0.9 }))).toBe(
      false,
    );
    expect(matchesEventFilter(people, parseEventFilter({ minConfidence: 0.9, warningsOnly: true }))).toBe(
      false,
    );
    expect(matchesEventFilter(people, parseEventFilter({ objectNames: 'PERSON', warningsOnly: true }))).toBe(
      true,
    );
    expect(matchesEventFilter(people, parseEventFilter({ minConfidence: 0.9 }))).toBe(true);
  });

  it('drops events without objects when an object condition is set', () => {
    expect(matchesEventFilter(event([]), parseEventFilter({ warningsOnly: true }))).toBe(false);
  });
});

describe('matchingObjects', () => {
  it('names the objects that passed, surest first, not the first one listed', () => {
    // The alert: a person at 47 % listed before the person at 82 % the event passed for.
    const two = event([
      { name: 'person', confidence: 0.47, warning: false },
      { name: 'car', confidence: 0.99, warning: false },
      { name: 'person', confidence: 0.82, warning: false },
      { name: 'person', confidence: 0.91, warning: false },
    ]);
    const matched = matchingObjects(two, parseEventFilter({ objectNames: 'person', minConfidence: 0.8 }));
    expect(matched?.map((object) => [object.name, object.confidence])).toEqual([
      ['person', 0.91],
      ['person', 0.82],
    ]);
    expect(matchingObjects(two, parseEventFilter({ objectNames: 'dog' }))).toEqual([]);
    // No object condition: every object passes, none in particular.
    expect(matchingObjects(two, parseEventFilter({ eventNames: 'person_in_zone' }))).toBeUndefined();
  });
});
