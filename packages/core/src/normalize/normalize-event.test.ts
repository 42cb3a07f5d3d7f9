import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toCornerBox, toPixelBox } from './boxes.js';
import { normalizeEvent } from './normalize-event.js';

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));
}

describe('normalizeEvent on fixtures', () => {
  it('reads a basic-form event with every field', () => {
    const { event, problems } = normalizeEvent(fixture('basic-event.json'));
    expect(problems).toEqual([]);
    expect(event).toMatchObject({
      form: 'basic',
      taskId: 12,
      eventTypeId: 2001,
      eventName: 'person_detected',
      eventDescription: 'A person entered the monitored area',
      timestamp: '2024-05-01T08:30:15Z',
      licensePlate: 'ABC-1234',
      imageUrl: 'https://observ.example.com/observ/media/snapshots/12/20240501083015.jpg',
      objectNames: ['person', 'car'],
      maxConfidence: 0.91,
      hasWarning: true,
      extra: {},
    });
    expect(event?.id).toBeUndefined();
    expect(event?.occurredAt.toISOString()).toBe('2024-05-01T08:30:15.000Z');
    expect(event?.objects[0]).toEqual({
      objectId: 'obj-1',
      name: 'person',
      box: { cx: 0.5, cy: 0.4, w: 0.2, h: 0.6 },
      confidence: 0.91,
      warning: true,
    });
    expect(event?.objects).toHaveLength(3);
  });

  it('reads an extended-form event: record id, place, vlm template and answers, geo position', () => {
    const { event, problems } = normalizeEvent(fixture('extended-event.json'));
    expect(problems).toEqual([]);
    expect(event).toMatchObject({
      form: 'extended',
      id: 98765,
      taskId: 3,
      locationId: 4,
      cameraId: 17,
      timezone: 'Asia/Taipei',
      note: 'north gate',
      coordinates: { latitude: 25.033, longitude: 121.5654 },
      vlm: {
        templateId: 5,
        templateName: 'Site safety',
        answers: {
          helmet_worn: false,
          people_count: 1,
          summary: 'One worker without a helmet near the crane',
        },
      },
      hasWarning: true,
      maxConfidence: 0.88,
    });
    expect(event?.licensePlate).toBeUndefined();
  });

  it("keeps the vendor's vlm shapes: keys with spaces, string arrays, numbers, booleans", () => {
    const { event, problems } = normalizeEvent(fixture('extended-vendor-vlm.json'));
    expect(problems).toEqual([]);
    expect(event?.vlm?.answers).toEqual({
      'Is there an ambulance present': true,
      Weather: ['Cloudy'],
      'Vehicles seen': ['ambulance', 'police car'],
      'Number of people': 3,
      'Scene description': 'An ambulance parked in front of the emergency entrance',
    });
    expect(event?.objects).toEqual([]);
    expect(event?.maxConfidence).toBe(0);
    expect(event?.hasWarning).toBe(false);
    expect(event?.note).toBe('');
  });

  it('gives events with the same fields one shape, in the interface order, whatever order the payload had', () => {
    const raw = fixture('extended-event.json') as Record<string, unknown>;
    const reversed = Object.fromEntries(Object.entries(raw).reverse());
    const inOrder = normalizeEvent(raw).event;
    const fromReversed = normalizeEvent(reversed).event;
    expect(fromReversed).toEqual(inOrder);
    // One key order means one object shape for everything downstream (JSON output included).
    expect(Object.keys(fromReversed ?? {})).toEqual(Object.keys(inOrder ?? {}));
    expect(Object.keys(inOrder ?? {})).toEqual([
      'taskId',
      'eventTypeId',
      'eventName',
      'timestamp',
      'occurredAt',
      'objects',
      'objectNames',
      'maxConfidence',
      'hasWarning',
      'id',
      'eventDescription',
      'imageUrl',
      'videoUrl',
      'locationId',
      'cameraId',
      'timezone',
      'vlm',
      'coordinates',
      'note',
      // `form` last but `extra`: hosts show the event's own fields first.
      'form',
      'extra',
    ]);
    // A basic-form event has the same order, without the optional fields it lacks.
    const basic = normalizeEvent(fixture('basic-event.json')).event ?? {};
    expect(Object.keys(basic).slice(-2)).toEqual(['form', 'extra']);
    expect(Object.keys(basic)).not.toContain('eventId');
  });

  it('passes unknown and misspelt fields through in extra, coerces quoted numbers and reports it', () => {
    const { event, problems } = normalizeEvent(fixture('extended-extra-fields.json'));
    expect(event?.taskId).toBe(21);
    expect(event?.extra).toMatchObject({
      event_desciption: "typo'd description field, as in the vendor's samples",
      camera: { id: 2, name: 'Dock camera' },
      location: { id: 1, name: 'Warehouse' },
      severity: 'high',
    });
    // A "__proto__" key stays data: it must not become the prototype of extra.
    expect(Object.getPrototypeOf(event?.extra)).toBe(Object.prototype);
    expect(Object.hasOwn(event?.extra ?? {}, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(event?.eventDescription).toBeUndefined();
    expect(event?.occurredAt.toISOString()).toBe('2024-02-29T04:00:00.250Z');
    expect(event?.timestamp).toBe('2024-02-29T12:00:00.250+08:00');
    expect(event?.objects[0]).toMatchObject({ objectId: '3', confidence: 0.77 });
    expect(problems).toEqual(
      expect.arrayContaining([
        'task_id was a string ("21"), read as a number',
        'detected_objects[0].object_id was a number, read as text',
        'detected_objects[0].confidence_score was a string ("0.77"), read as a number',
      ]),
    );
  });

  it('keeps what is usable of a damaged event and lists every problem', () => {
    const raw = fixture('damaged-but-usable.json') as Record<string, unknown>;
    const { event, problems } = normalizeEvent(raw);
    expect(event).toBeDefined();
    // No zone: read as UTC, as the service writes UTC.
    expect(event?.occurredAt.toISOString()).toBe('2024-03-10T10:00:00.000Z');
    expect(event?.objects.map((o) => o.name)).toEqual(['dog', 'cat']);
    expect(event?.objects[1]?.warning).toBe(true);
    expect(event?.maxConfidence).toBe(1.7);
    expect(event?.vlm).toEqual({ answers: { mixed: ['a', '1', 'true'] } });
    expect(event?.coordinates).toBeUndefined();
    expect(event?.extra).toEqual({
      coordinates: { latitude: 'north', longitude: 10 },
      location_id: 'abc',
    });
    expect(event?.imageUrl).toBe('12345');
    expect(event?.form).toBe('extended');
    for (const expected of [
      /detected_objects\[0\]\.coordinates is not 4 numbers/,
      /detected_objects\[1\] is not an object/,
      /confidence_score 1\.7 is outside 0\.\.1/,
      /vlm\.observ_template_id is not an integer/,
      /vlm\["weird"\] has an unsupported value/,
      /coordinates\.latitude is not a number/,
      /location_id is not an integer/,
    ]) {
      expect(
        problems.some((p) => expected.test(p)),
        String(expected),
      ).toBe(true);
    }
  });

  it('gives no event, only problems, when a payload cannot identify an event', () => {
    const samples = fixture('malformed-events.json') as unknown[];
    for (const raw of samples) {
      const { event, problems } = normalizeEvent(raw);
      expect(event, JSON.stringify(raw)).toBeUndefined();
      expect(problems.length, JSON.stringify(raw)).toBeGreaterThan(0);
    }
    expect(normalizeEvent({ task_id: 1, event_id: 2, event_name: 'x' }).problems).toContain(
      'timestamp is missing',
    );
  });

  it('survives objects whose getters throw', () => {
    const hostile = {
      task_id: 1,
      event_id: 1,
      event_name: 'x',
      get timestamp(): string {
        throw new Error('boom');
      },
    };
    const result = normalizeEvent(hostile);
    expect(result.event).toBeUndefined();
    expect(result.problems.at(-1)).toMatch(/could not be read: boom/);
  });

  it('produces JSON-friendly output', () => {
    const { event } = normalizeEvent(fixture('extended-event.json'));
    const copy = JSON.parse(JSON.stringify(event));
    expect(copy.occurredAt).toBe('2024-05-01T23:59:59.000Z');
    expect(copy.vlm.answers.people_count).toBe(1);
  });
});

describe('box helpers', () => {
  it('scales a centre box to pixels (top-left + size)', () => {
    expect(toPixelBox({ cx: 0.5, cy: 0.5, w: 0.2, h: 0.4 }, 1920, 1080)).toEqual({
      x: 768,
      y: 324,
      width: 384,
      height: 432,
    });
  });
  it('converts a centre box to corners', () => {
    const c = toCornerBox({ cx: 0.5, cy: 0.4, w: 0.2, h: 0.6 });
    expect(c.x1).toBeCloseTo(0.4);
    expect(c.y1).toBeCloseTo(0.1);
    expect(c.x2).toBeCloseTo(0.6);
    expect(c.y2).toBeCloseTo(0.7);
  });
});

describe('normalizeEvent properties', () => {
  const objectArb = fc.record(
    {
      object_id: fc.oneof(fc.string(), fc.integer()),
      object_name: fc.oneof(fc.string(), fc.constant(undefined)),
      coordinates: fc.oneof(fc.array(fc.double(), { minLength: 4, maxLength: 4 }), fc.anything()),
      confidence_score: fc.oneof(fc.double({ min: 0, max: 1 }), fc.anything()),
      warning: fc.oneof(fc.boolean(), fc.anything()),
    },
    { requiredKeys: [] },
  );
  const eventLike = fc.record(
    {
      id: fc.oneof(fc.integer(), fc.anything()),
      task_id: fc.oneof(fc.integer({ min: 1 }), fc.string(), fc.anything()),
      event_id: fc.oneof(fc.integer({ min: 1 }), fc.anything()),
      event_name: fc.oneof(fc.string(), fc.anything()),
      timestamp: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.string(),
        fc.integer(),
        fc.anything(),
      ),
      detected_objects: fc.oneof(fc.array(objectArb), fc.anything()),
      vlm: fc.oneof(fc.dictionary(fc.string(), fc.anything()), fc.anything()),
      coordinates: fc.anything(),
    },
    { requiredKeys: [] },
  );

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), eventLike, fc.jsonValue()), (raw) => {
        const result = normalizeEvent(raw);
        expect(Array.isArray(result.problems)).toBe(true);
        if (result.event) {
          expect(Number.isNaN(result.event.occurredAt.getTime())).toBe(false);
          expect(Number.isSafeInteger(result.event.taskId)).toBe(true);
        } else {
          expect(result.problems.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('a well-formed event always normalizes without problems and keeps every object', () => {
    const goodObject = fc.record({
      object_id: fc.string(),
      object_name: fc.string({ minLength: 1 }),
      coordinates: fc.tuple(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
      ),
      confidence_score: fc.double({ min: 0, max: 1, noNaN: true }),
      warning: fc.boolean(),
    });
    const goodEvent = fc.record({
      task_id: fc.integer({ min: 1, max: 1_000_000 }),
      event_id: fc.integer({ min: 1, max: 1_000_000 }),
      event_name: fc.string(),
      timestamp: fc
        .date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2099-12-31T23:59:59Z'),
          noInvalidDate: true,
        })
        .map((d) => `${d.toISOString().slice(0, 19)}Z`),
      detected_objects: fc.array(goodObject, { maxLength: 5 }),
    });
    fc.assert(
      fc.property(goodEvent, (raw) => {
        const { event, problems } = normalizeEvent(raw);
        expect(problems).toEqual([]);
        expect(event?.form).toBe('basic');
        expect(event?.objects).toHaveLength(raw.detected_objects.length);
        expect(event?.occurredAt.toISOString().slice(0, 19)).toBe(raw.timestamp.slice(0, 19));
        const max = Math.max(0, ...raw.detected_objects.map((o) => o.confidence_score));
        expect(event?.maxConfidence).toBe(max);
        expect(event?.hasWarning).toBe(raw.detected_objects.some((o) => o.warning));
      }),
      { numRuns: 500 },
    );
  });

  it('puts exactly the keys the interface does not describe in extra, wherever they stand', () => {
    // Known keys are read by name and unknown ones found by counting keys: a known key that is
    // null or absent, or an unknown one among them, must not throw the count off.
    const optional = {
      id: 7,
      event_description: 'd',
      image_url: 'i',
      video_url: 'v',
      license_plate: 'p',
      location_id: 1,
      camera_id: 2,
      timezone: 'Asia/Taipei',
      vlm: { answer: true },
      coordinates: { latitude: 1, longitude: 2 },
      note: 'n',
    };
    const extendedOnly = ['id', 'location_id', 'camera_id', 'timezone', 'vlm', 'coordinates', 'note'];
    const entry = fc.oneof(
      fc
        .constantFrom(...Object.keys(optional))
        .chain((key) =>
          fc.tuple(fc.constant(key), fc.constantFrom(optional[key as keyof typeof optional], null)),
        ),
      fc.tuple(
        fc.string({ minLength: 1 }).map((key) => `x_${key}`),
        fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      ),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(entry, { selector: ([key]) => key, maxLength: 14 }),
        fc.nat(),
        (entries, at) => {
          const required: [string, unknown][] = [
            ['task_id', 3],
            ['event_id', 2004],
            ['event_name', 'intrusion'],
            ['timestamp', '2024-05-01T23:59:59Z'],
          ];
          const all: [string, unknown][] = [...entries];
          all.splice(at % (all.length + 1), 0, ...required);
          const { event, problems } = normalizeEvent(Object.fromEntries(all));
          expect(problems).toEqual([]);
          const unknown = entries.filter(([key]) => key.startsWith('x_'));
          expect(event?.extra).toEqual(Object.fromEntries(unknown));
          expect(Object.keys(event?.extra ?? {})).toEqual(unknown.map(([key]) => key));
          expect(event?.form).toBe(
            entries.some(([key]) => extendedOnly.includes(key)) ? 'extended' : 'basic',
          );
          for (const [key, value] of entries) {
            if (key === 'id') expect(event?.id).toBe(value ?? undefined);
            if (key === 'note') expect(event?.note).toBe(value ?? undefined);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
