import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { parseHistoryFilters, parseLocationFilters, parseTaskFilters } from '../resources/parse-filters.js';
import { parseId } from './parse-id.js';
import { parseIdList } from './parse-id-list.js';
import { parseLimit, parseOffset } from './parse-limit.js';
import { parseTime } from './parse-time.js';

function errorOf(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseId', () => {
  it('accepts positive safe integers as numbers or digit strings', () => {
    expect(parseId(1, 'taskId')).toBe(1);
    expect(parseId('42', 'taskId')).toBe(42);
    expect(parseId(' 7 ', 'taskId')).toBe(7);
    expect(parseId(Number.MAX_SAFE_INTEGER, 'taskId')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    ['1; drop'],
    ['../x'],
    [1.5],
    [-3],
    [''],
    [0],
    ['0'],
    ['01'],
    ['1e3'],
    [Number.NaN],
    [null],
    [undefined],
    [{}],
    [[1]],
    ['9007199254740993'],
    [2 ** 53],
  ])('refuses %j naming the parameter, the value and what is allowed', (value) => {
    const error = errorOf(() => parseId(value, 'taskId'));
    expect(error.parameter).toBe('taskId');
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('taskId');
    expect(error.message).toContain('positive whole number');
    expect(error.given.length).toBeGreaterThan(0);
  });

  it('shows the given value in the message', () => {
    expect(errorOf(() => parseId('1; drop', 'taskId')).message).toBe(
      'Invalid taskId: got "1; drop"; expected a positive whole number (1, 2, 3, …)',
    );
    expect(errorOf(() => parseId(-3, 'eventId')).given).toBe('number -3');
  });
});

describe('parseIdList', () => {
  it('accepts arrays, comma-separated strings and single ids', () => {
    expect(parseIdList([1, '2', 3], 'ids')).toEqual([1, 2, 3]);
    expect(parseIdList('4, 5,6', 'ids')).toEqual([4, 5, 6]);
    expect(parseIdList(9, 'ids')).toEqual([9]);
  });
  it('refuses empty lists, duplicates and bad entries, naming the entry', () => {
    expect(errorOf(() => parseIdList([], 'ids')).parameter).toBe('ids');
    expect(errorOf(() => parseIdList('', 'ids')).parameter).toBe('ids');
    expect(errorOf(() => parseIdList([1, 1], 'ids')).given).toBe('1 more than once');
    expect(errorOf(() => parseIdList('1,x', 'ids')).parameter).toBe('ids[1]');
    expect(errorOf(() => parseIdList([1, -2], 'ids')).parameter).toBe('ids[1]');
    expect(errorOf(() => parseIdList({}, 'ids')).given).toBe('an object');
  });
});

describe('parseTime', () => {
  it('emits YYYY-MM-DDThh:mm:ss in UTC from every accepted shape', () => {
    expect(parseTime(new Date('2024-05-01T08:30:15.999Z'), 'startTime')).toBe('2024-05-01T08:30:15');
    expect(parseTime('2024-05-01T08:30:15Z', 'startTime')).toBe('2024-05-01T08:30:15');
    expect(parseTime('2024-05-01T08:30:15', 'startTime')).toBe('2024-05-01T08:30:15');
    expect(parseTime('2024-05-01T10:30:15+02:00', 'startTime')).toBe('2024-05-01T08:30:15');
    expect(parseTime('2024-05-01T03:30:15-0500', 'startTime')).toBe('2024-05-01T08:30:15');
    expect(parseTime('2024-05-01', 'startTime')).toBe('2024-05-01T00:00:00');
    expect(parseTime('2024-05-01 08:30', 'startTime')).toBe('2024-05-01T08:30:00');
    expect(parseTime(Date.UTC(2024, 4, 1, 8, 30, 15), 'startTime')).toBe('2024-05-01T08:30:15');
    expect(parseTime(String(Date.UTC(2024, 4, 1, 8, 30, 15)), 'startTime')).toBe('2024-05-01T08:30:15');
  });

  it.each([
    ['yesterday'],
    ['2024-02-30T00:00:00Z'],
    ['2024-13-01'],
    ['2024-05-01T25:00:00'],
    [''],
    [Number.NaN],
    [new Date('x')],
    [null],
    [true],
    ['1e12'],
  ])('refuses %j', (value) => {
    const error = errorOf(() => parseTime(value, 'endTime'));
    expect(error.parameter).toBe('endTime');
    expect(error.allowed).toContain('ISO 8601');
  });
});

describe('parseLimit / parseOffset', () => {
  it('accepts whole numbers in range', () => {
    expect(parseLimit(100, 'limit')).toBe(100);
    expect(parseLimit('25', 'limit', 100)).toBe(25);
    expect(parseOffset(0, 'offset')).toBe(0);
    expect(parseOffset('10', 'offset')).toBe(10);
  });
  it('refuses negatives, fractions, zero limits and over-maximum values with the range', () => {
    expect(errorOf(() => parseLimit(0, 'limit')).allowed).toBe('a whole number of at least 1');
    expect(errorOf(() => parseLimit(101, 'limit', 100)).allowed).toBe('a whole number from 1 to 100');
    expect(errorOf(() => parseLimit(2.5, 'limit')).given).toBe('number 2.5');
    expect(errorOf(() => parseOffset(-1, 'offset')).allowed).toBe('a whole number of at least 0');
    expect(errorOf(() => parseOffset('abc', 'offset')).given).toBe('"abc"');
  });
});

describe('filters', () => {
  it('maps history filters to the spec names, comma-joins ids and accepts snake_case aliases', () => {
    const parsed = parseHistoryFilters(
      {
        startTime: '2024-05-01T00:00:00Z',
        end_time: new Date('2024-05-02T00:00:00Z'),
        eventName: 'person_detected',
        taskId: '3',
        eventTypeId: 2001,
        locationId: 4,
        cameraId: 5,
        ids: [7, 8, 9],
        offset: 10,
        limit: 50,
      },
      'auto',
    );
    expect(parsed.query).toEqual({
      start_time: '2024-05-01T00:00:00',
      end_time: '2024-05-02T00:00:00',
      event_name: 'person_detected',
      task_id: 3,
      event_id: 2001,
      location_id: 4,
      camera_id: 5,
      ids: '7,8,9',
    });
    expect(parsed.offset).toBe(10);
    expect(parsed.limit).toBe(50);
  });

  it('refuses start after end, unknown names, both spellings, and extended filters in basic form', () => {
    const order = errorOf(() =>
      parseHistoryFilters({ startTime: '2024-05-02T00:00:00Z', endTime: '2024-05-01T00:00:00Z' }, 'auto'),
    );
    expect(order.parameter).toBe('startTime');
    expect(order.message).toContain(
      'later than the end time "2024-05-01T00:00:00Z" (2024-05-01 00:00:00 UTC)',
    );
    // The time zone the user wrote is kept, beside UTC; no internal name in the words.
    const zoned = errorOf(() =>
      parseHistoryFilters(
        { startTime: '2024-05-02T10:00:00+08:00', endTime: '2024-05-01T10:00:00+08:00' },
        'auto',
      ),
    );
    expect(zoned.given).toBe(
      '"2024-05-02T10:00:00+08:00" (2024-05-02 02:00:00 UTC), later than the end time "2024-05-01T10:00:00+08:00" (2024-05-01 02:00:00 UTC)',
    );
    expect(`${zoned.given} ${zoned.allowed}`).not.toMatch(/startTime|endTime/);
    const unknown = errorOf(() => parseHistoryFilters({ taskID: 1 }, 'auto'));
    expect(unknown.message).toContain('"taskID"');
    expect(unknown.allowed).toContain('taskId');
    expect(errorOf(() => parseHistoryFilters({ taskId: 1, task_id: 2 }, 'auto')).parameter).toBe(
      'history.taskId',
    );
    expect(errorOf(() => parseHistoryFilters({ eventTypeId: 1, eventId: 2 }, 'auto')).parameter).toBe(
      'history.eventTypeId',
    );
    expect(errorOf(() => parseHistoryFilters({ eventId: 1 }, 'basic')).parameter).toBe('eventTypeId');
    expect(errorOf(() => parseHistoryFilters({ locationId: 1 }, 'basic')).allowed).toContain('extended form');
    expect(errorOf(() => parseHistoryFilters({ eventName: '' }, 'auto')).parameter).toBe('eventName');
    expect(errorOf(() => parseHistoryFilters('task=1', 'auto')).parameter).toBe('history');
    expect(errorOf(() => parseTaskFilters({ organizationId: 1 })).allowed).toContain('locationId');
    expect(parseLocationFilters({ organization_id: 2, ids: '1,2' }).query).toEqual({
      organization_id: 2,
      ids: '1,2',
    });
    expect(parseTaskFilters({ locationId: 1, camera_id: 2, ids: [3] }).query).toEqual({
      location_id: 1,
      camera_id: 2,
      ids: '3',
    });
  });
});

describe('validator properties', () => {
  const anyInput = fc.oneof(fc.anything(), fc.string(), fc.integer(), fc.double(), fc.date());
  const validators: Array<[string, (v: unknown) => unknown]> = [
    ['parseId', (v) => parseId(v, 'id')],
    ['parseIdList', (v) => parseIdList(v, 'ids')],
    ['parseTime', (v) => parseTime(v, 'time')],
    ['parseLimit', (v) => parseLimit(v, 'limit', 100)],
    ['parseOffset', (v) => parseOffset(v, 'offset')],
    ['parseHistoryFilters', (v) => parseHistoryFilters(v, 'auto')],
    [
      'parseHistoryFilters(object)',
      (v) => parseHistoryFilters({ startTime: v, taskId: v, ids: v, limit: v }, 'auto'),
    ],
  ];

  it.each(validators)(
    '%s either returns or throws a ValidationError, never anything else',
    (_name, validate) => {
      fc.assert(
        fc.property(anyInput, (value) => {
          try {
            validate(value);
          } catch (error) {
            expect(ValidationError.isInstance(error)).toBe(true);
            expect((error as ValidationError).message.length).toBeLessThan(400);
          }
        }),
        { numRuns: 1000 },
      );
    },
  );

  it('parseId accepts exactly the positive safe integers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(parseId(n, 'id')).toBe(n);
        expect(parseId(String(n), 'id')).toBe(n);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ max: 0 }), (n) => {
        expect(() => parseId(n, 'id')).toThrow(ValidationError);
      }),
    );
  });

  it('parseTime round-trips any date of years 1000-9999 to its UTC second', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        (date) => {
          const wire = date.toISOString().slice(0, 19);
          expect(parseTime(date, 't')).toBe(wire);
          expect(parseTime(date.toISOString(), 't')).toBe(wire);
          expect(parseTime(wire, 't')).toBe(wire);
          expect(parseTime(date.getTime(), 't')).toBe(wire);
        },
      ),
    );
  });
});
