import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../simulator.js';
import { call } from '../testing/sim-client.js';
import type { ExtendedEventPayload } from '../types.js';

type Row = ExtendedEventPayload & { license_plate?: string };

const HISTORY_END = '2024-06-01T12:00:00Z';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const BASIC_FORBIDDEN = ['id', 'location_id', 'camera_id', 'timezone', 'vlm', 'coordinates', 'note'];

describe('GET /events/history', () => {
  let sim: Simulator;
  let asc: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ historySize: 2000, historyEnd: HISTORY_END, historySpanMs: 2000 * 60_000 });
    asc = await startSimulator({
      historySize: 2000,
      historyEnd: HISTORY_END,
      historySpanMs: 2000 * 60_000,
      historyOrder: 'asc',
    });
  });
  afterAll(async () => {
    await Promise.all([sim.stop(), asc.stop()]);
  });

  const history = (s: Simulator, query: string, as?: 'basic' | 'extended') =>
    call<Row[]>(s, `/events/history${query}`, { as });

  it('answers 100 events by default, newest first (desc is the default order)', async () => {
    const { status, body } = await history(sim, '');
    expect(status).toBe(200);
    expect(body).toHaveLength(100);
    expect(body[0]?.id).toBe(2000);
    for (let n = 1; n < body.length; n++) {
      expect((body[n - 1] as Row).timestamp >= (body[n] as Row).timestamp).toBe(true);
      expect((body[n - 1] as Row).id).toBeGreaterThan((body[n] as Row).id);
    }
  });

  it('historyOrder asc answers oldest first', async () => {
    const { body } = await history(asc, '?limit=5');
    expect(body.map((row) => row.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it('pages with offset/limit without gaps or overlaps', async () => {
    const whole = (await history(sim, '?limit=100&offset=0')).body.concat(
      (await history(sim, '?limit=100&offset=100')).body,
    );
    const pieces: Row[] = [];
    for (let offset = 0; offset < 200; offset += 30)
      pieces.push(...(await history(sim, `?limit=30&offset=${offset}`)).body);
    expect(pieces.slice(0, 200).map((row) => row.id)).toEqual(whole.map((row) => row.id));
    expect((await history(sim, '?offset=5000')).body).toEqual([]);
  });

  it('extended payloads carry every field in the spec shape', async () => {
    const { body } = await history(sim, '?limit=100');
    for (const row of body) {
      expect(row.timestamp).toMatch(TIMESTAMP);
      expect(Object.keys(row).sort()).toEqual(
        [
          'id',
          'task_id',
          'event_id',
          'event_name',
          'event_description',
          'timestamp',
          'image_url',
          'video_url',
          'detected_objects',
          'location_id',
          'camera_id',
          'timezone',
          'vlm',
          'coordinates',
          'note',
        ].sort(),
      );
      expect(row.image_url).toBe(`${sim.apiUrl}/media/snapshots/${row.id}.png`);
      expect(row.video_url).toBe(`${sim.apiUrl}/media/clips/${row.id}.mp4`);
      expect(row.timezone).toMatch(/^[A-Z][a-z]+\/[A-Za-z_]+$/);
      for (const object of row.detected_objects) {
        expect(object.coordinates).toHaveLength(4);
        for (const value of object.coordinates) expect(value).toBeGreaterThanOrEqual(0);
        const [cx, cy, w, h] = object.coordinates;
        expect(cx - w / 2).toBeGreaterThanOrEqual(0);
        expect(cy + h / 2).toBeLessThanOrEqual(1);
        expect(object.confidence_score).toBeGreaterThan(0);
        expect(object.confidence_score).toBeLessThanOrEqual(1);
        expect(typeof object.object_id).toBe('string');
        expect(typeof object.warning).toBe('boolean');
      }
    }
    // The seeded data covers the variety clients must handle.
    expect(body.some((row) => row.detected_objects.length === 0)).toBe(true);
    expect(body.some((row) => row.detected_objects.length >= 5)).toBe(true);
    expect(body.some((row) => row.vlm === null)).toBe(true);
    const answers = body.flatMap((row) => (row.vlm ? Object.entries(row.vlm) : []));
    expect(answers.some(([key, value]) => key.includes(' ') && typeof value === 'boolean')).toBe(true);
    expect(answers.some(([, value]) => Array.isArray(value))).toBe(true);
    expect(answers.some(([key, value]) => key !== 'observ_template_id' && typeof value === 'number')).toBe(
      true,
    );
    expect(answers.some(([key, value]) => key !== 'observ_template_name' && typeof value === 'string')).toBe(
      true,
    );
    expect(body.some((row) => row.detected_objects.some((object) => object.warning))).toBe(true);
  });

  it('basic payloads (form both without X-Service-Id) omit the extended fields and may carry license_plate', async () => {
    const { body } = await history(sim, '?limit=300', 'basic');
    expect(body).toHaveLength(300);
    for (const row of body) for (const field of BASIC_FORBIDDEN) expect(row).not.toHaveProperty(field);
    expect(body.some((row) => typeof row.license_plate === 'string')).toBe(true);
    // The same records in the extended form: license_plate is listed only in the basic form.
    const withPlate = (await history(sim, '?limit=300', 'basic')).body.findIndex((row) => row.license_plate);
    const extended = (await history(sim, `?offset=${withPlate}&limit=1`)).body[0] as Row;
    expect(extended.detected_objects).toEqual(body[withPlate]?.detected_objects);
    expect(extended).not.toHaveProperty('license_plate');
  });

  it('filters by start_time/end_time inclusively, in any ISO 8601 shape', async () => {
    const all = (await history(asc, '?limit=100')).body;
    const from = String((all[10] as Row).timestamp);
    const to = String((all[20] as Row).timestamp);
    const naive = (value: string) => value.replace('Z', '');
    const { body } = await history(asc, `?start_time=${naive(from)}&end_time=${naive(to)}`);
    expect(body.map((row) => row.id)).toEqual(all.slice(10, 21).map((row) => row.id));
    const offset = await history(
      asc,
      `?start_time=${encodeURIComponent(from.replace('Z', '+00:00'))}&limit=1`,
    );
    expect(offset.body[0]?.id).toBe(11);
    const empty = await history(asc, `?start_time=${to}&end_time=${from}`);
    expect(empty.body).toEqual([]);
  });

  it('filters by task_id, event_name, event_id, location_id and camera_id', async () => {
    const task = sim.world.tasks[1];
    if (!task) throw new Error('seeded world has tasks');
    const byTask = (await history(sim, `?task_id=${task.id}&limit=50`)).body;
    expect(byTask.length).toBe(50);
    expect(byTask.every((row) => row.task_id === task.id)).toBe(true);
    const byName = (await history(sim, '?event_name=person_in_zone&limit=50')).body;
    expect(byName.length).toBeGreaterThan(0);
    expect(byName.every((row) => row.event_name === 'person_in_zone' && row.event_id === 2001)).toBe(true);
    const byId = (await history(sim, '?event_id=2002&limit=50')).body;
    expect(byId.length).toBeGreaterThan(0);
    expect(byId.every((row) => row.event_id === 2002)).toBe(true);
    const byLocation = (await history(sim, `?location_id=${task.location_id}&limit=50`)).body;
    expect(byLocation.length).toBeGreaterThan(0);
    expect(byLocation.every((row) => row.location_id === task.location_id)).toBe(true);
    const byCamera = (await history(sim, `?camera_id=${task.camera_id}&limit=50`)).body;
    expect(byCamera.length).toBeGreaterThan(0);
    expect(byCamera.every((row) => row.camera_id === task.camera_id)).toBe(true);
    const combined = (
      await history(sim, `?task_id=${task.id}&event_id=2003&event_name=smoke_detected&limit=100`)
    ).body;
    expect(combined.every((row) => row.task_id === task.id && row.event_id === 2003)).toBe(true);
    expect((await history(sim, '?event_name=no_such_event')).body).toEqual([]);
    // Filtered paging is consistent too.
    const page2 = (await history(sim, `?task_id=${task.id}&limit=25&offset=25`)).body;
    expect(page2.map((row) => row.id)).toEqual(byTask.slice(25, 50).map((row) => row.id));
  });

  it('fetches record ids with ids=comma list (extended), ignoring ids that do not exist', async () => {
    const { body } = await history(asc, '?ids=7,3,1999,3,999999');
    expect(body.map((row) => row.id)).toEqual([3, 7, 1999]);
    const withFilter = await history(
      asc,
      `?ids=1,2,3,4,5,6,7,8,9,10&task_id=${(await history(asc, '?ids=4')).body[0]?.task_id}`,
    );
    expect(withFilter.body.map((row) => row.id)).toContain(4);
  });

  it('basic form does not know the extended filters: they are ignored like any unknown parameter', async () => {
    const unfiltered = (await history(sim, '?limit=20', 'basic')).body;
    const ignored = (
      await history(sim, '?limit=20&event_id=2002&location_id=99999&camera_id=abc&ids=x', 'basic')
    ).body;
    expect(ignored).toEqual(unfiltered);
    const unknown = (await history(sim, '?limit=20&colour=blue&page=3')).body;
    expect(unknown.map((row) => row.id)).toEqual((await history(sim, '?limit=20')).body.map((row) => row.id));
  });

  it('answers 422 with FastAPI-style details for invalid parameters', async () => {
    const cases: Array<[string, string, string]> = [
      ['?task_id=abc', 'task_id', 'int_parsing'],
      ['?limit=-1', 'limit', 'greater_than_equal'],
      ['?offset=-5', 'offset', 'greater_than_equal'],
      ['?limit=ten', 'limit', 'int_parsing'],
      ['?start_time=yesterday', 'start_time', 'datetime_from_date_parsing'],
      ['?end_time=2024-13-01T00:00:00', 'end_time', 'datetime_from_date_parsing'],
      ['?event_id=1.5', 'event_id', 'int_parsing'],
      ['?ids=1,two', 'ids', 'int_list_parsing'],
    ];
    for (const [query, parameter, type] of cases) {
      const answer = await call<{ detail: Array<{ loc: string[]; type: string; input: string }> }>(
        sim,
        `/events/history${query}`,
      );
      expect(answer.status, query).toBe(422);
      expect(answer.body.detail[0]?.loc).toEqual(['query', parameter]);
      expect(answer.body.detail[0]?.type).toBe(type);
    }
    const several = await call<{ detail: unknown[] }>(sim, '/events/history?task_id=x&limit=y');
    expect(several.body.detail).toHaveLength(2);
  });

  it('limit maximum: 100 extended, 10000 basic (form both decides by X-Service-Id); reject names the maximum', async () => {
    const over = await history(sim, '?limit=101');
    expect(over.status).toBe(422);
    expect(over.body).toEqual({ detail: 'limit must be <= 100' });
    expect((await history(sim, '?limit=100')).body).toHaveLength(100);
    const basic = await history(sim, '?limit=1500', 'basic');
    expect(basic.status).toBe(200);
    expect(basic.body).toHaveLength(1500);
    const basicOver = await history(sim, '?limit=10001', 'basic');
    expect(basicOver.status).toBe(422);
    expect(basicOver.body).toEqual({ detail: 'limit must be <= 10000' });
    expect((await history(sim, '?limit=0')).body).toEqual([]);
  });

  it('overLimit clamp silently answers the maximum', async () => {
    const clamp = await startSimulator({ form: 'extended', historySize: 300, overLimit: 'clamp' });
    try {
      const answer = await call<Row[]>(clamp, '/events/history?limit=250');
      expect(answer.status).toBe(200);
      expect(answer.body).toHaveLength(100);
    } finally {
      await clamp.stop();
    }
  });

  it('emitted live events are in history with the same record id, after the seeded ones', async () => {
    const emitted = await sim.control.emit(3, { taskIds: [2] });
    expect(emitted.map((event) => event.id)).toEqual([2001, 2002, 2003]);
    const { body } = await history(sim, '?ids=2001,2002,2003');
    expect(body.map((row) => row.id)).toEqual([2003, 2002, 2001]);
    const byId = new Map(emitted.map((event) => [event.id, event]));
    for (const row of body) {
      const { license_plate: _plate, ...expected } = byId.get(row.id) as Row;
      expect(row).toEqual(expected);
    }
    expect((await history(sim, '?limit=1')).body[0]?.id).toBe(2003);
    expect(((await history(sim, '?limit=1')).body[0] as Row).timestamp > HISTORY_END).toBe(true);
  });
});

describe('history at benchmark scale', () => {
  it('a million seeded events cost no memory up front and deep pages answer exact ids', async () => {
    const big = await startSimulator({ form: 'basic', historySize: 1_000_000, historyOrder: 'asc' });
    try {
      const last = await call<Row[]>(big, '/events/history?offset=999990&limit=10000');
      expect(last.body).toHaveLength(10);
      const first = await call<Row[]>(big, '/events/history?limit=3');
      const deep = await call<Row[]>(big, '/events/history?offset=500000&limit=2');
      // Timestamps never go backwards across the whole range.
      expect((first.body[2] as Row).timestamp <= (deep.body[0] as Row).timestamp).toBe(true);
      expect((deep.body[1] as Row).timestamp <= (last.body[0] as Row).timestamp).toBe(true);
      const ranged = await call<Row[]>(
        big,
        `/events/history?start_time=${(deep.body[0] as Row).timestamp}&end_time=${(deep.body[0] as Row).timestamp}&limit=10000`,
      );
      expect(ranged.body.length).toBeGreaterThan(0);
      expect(ranged.body.every((row) => row.timestamp === (deep.body[0] as Row).timestamp)).toBe(true);
      expect(big.getEvent(1_000_000)?.id).toBe(1_000_000);
      expect(big.getEvent(1_000_001)).toBeUndefined();
    } finally {
      await big.stop();
    }
  });

  it('the same seed yields the same history', async () => {
    const options = { historySize: 500, historyEnd: HISTORY_END, seed: 42 };
    const [a, b, c] = await Promise.all([
      startSimulator(options),
      startSimulator(options),
      startSimulator({ ...options, seed: 43 }),
    ]);
    try {
      const strip = (rows: Row[]) => rows.map(({ image_url: _i, video_url: _v, ...rest }) => rest);
      const rowsA = strip((await call<Row[]>(a, '/events/history?limit=50')).body);
      expect(rowsA).toEqual(strip((await call<Row[]>(b, '/events/history?limit=50')).body));
      expect(rowsA).not.toEqual(strip((await call<Row[]>(c, '/events/history?limit=50')).body));
    } finally {
      await Promise.all([a.stop(), b.stop(), c.stop()]);
    }
  });
});
