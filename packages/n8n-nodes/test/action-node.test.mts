import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  actionType,
  createEngine,
  type Engine,
  listSearch,
  makeNode,
  runNode,
} from './harness/n8n-engine.mts';
import { loginCredential, tokenCredential } from './harness/simulator-credentials.mts';

let sim: Simulator;
let engine: Engine;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 7, historySize: 400 });
  engine = await createEngine(tokenCredential(sim));
});
afterAll(async () => {
  await sim.stop();
});

const byId = (value: number | string) => ({ __rl: true, mode: 'id', value: String(value) });
const fromList = (value: number | string) => ({ __rl: true, mode: 'list', value: String(value) });

describe('Event', () => {
  test('Get Many returns normalized events, flat fields, up to the limit, each paired with its input', async () => {
    const node = makeNode(actionType, {
      resource: 'event',
      operation: 'getMany',
      returnAll: false,
      limit: 7,
    });
    const { items, error } = await runNode(engine, node);
    expect(error).toBeUndefined();
    expect(items).toHaveLength(7);
    for (const item of items) {
      expect(item.pairedItem).toEqual({ item: 0 });
      expect(typeof item.json.taskId).toBe('number');
      expect(typeof item.json.eventName).toBe('string');
      expect(typeof item.json.occurredAt).toBe('string');
      expect(Array.isArray(item.json.objects)).toBe(true);
      expect(item.json.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
  });

  test('Get Many with Return All pages through every event of a task', async () => {
    const taskId = sim.world.tasks[0]?.id ?? 1;
    const node = makeNode(actionType, {
      resource: 'event',
      operation: 'getMany',
      returnAll: true,
      filters: { task: fromList(taskId) },
    });
    const { items, error } = await runNode(engine, node);
    expect(error).toBeUndefined();
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((item) => item.json.taskId === taskId)).toBe(true);
  });

  test('Get Many with Output Raw Payload returns the service items as sent, up to the limit or all of a task', async () => {
    const taskId = sim.world.tasks[1]?.id ?? 2;
    const normalized = await runNode(
      engine,
      makeNode(actionType, { resource: 'event', operation: 'getMany', returnAll: false, limit: 5 }),
    );
    const raw = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'event',
        operation: 'getMany',
        returnAll: false,
        limit: 5,
        options: { rawOutput: true },
      }),
    );
    expect(raw.error).toBeUndefined();
    expect(raw.items).toHaveLength(5);
    expect(raw.items.map((item) => item.json.id)).toEqual(normalized.items.map((item) => item.json.id));
    expect(raw.items[0]?.json).toHaveProperty('event_name', normalized.items[0]?.json.eventName);
    expect(raw.items[0]?.json).toHaveProperty('task_id');
    expect(raw.items[0]?.json).not.toHaveProperty('eventName');
    expect(raw.items[0]?.pairedItem).toEqual({ item: 0 });

    const all = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'event',
        operation: 'getMany',
        returnAll: true,
        filters: { task: byId(taskId) },
        options: { rawOutput: true },
      }),
    );
    const allNormalized = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'event',
        operation: 'getMany',
        returnAll: true,
        filters: { task: byId(taskId) },
      }),
    );
    expect(all.items.length).toBeGreaterThan(0);
    expect(all.items).toHaveLength(allNormalized.items.length);
    expect(all.items.every((item) => item.json.task_id === taskId)).toBe(true);
  });

  test('Get Many filters by event name, event type, location, time range and record ids', async () => {
    const type = sim.world.eventTypes[0];
    if (!type) throw new Error('the simulator has no event types');
    const sample = await runNode(
      engine,
      makeNode(actionType, { resource: 'event', operation: 'getMany', returnAll: false, limit: 20 }),
    );
    const first = sample.items[0]?.json;
    if (!first) throw new Error('no history');

    const named = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'event',
        operation: 'getMany',
        limit: 10,
        filters: { eventName: type.name, eventTypeId: type.id },
      }),
    );
    expect(named.error).toBeUndefined();
    expect(named.items.length).toBeGreaterThan(0);
    expect(
      named.items.every((item) => item.json.eventName === type.name && item.json.eventTypeId === type.id),
    ).toBe(true);

    const located = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'event',
        operation: 'getMany',
        limit: 10,
        filters: { location: byId(first.locationId as number) },
      }),
    );
    expect(located.items.length).toBeGreaterThan(0);
    expect(located.items.every((item) => item.json.locationId === first.locationId)).toBe(true);

    const at = Date.parse(first.occurredAt as string);
    const windowed = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'event',
        operation: 'getMany',
        returnAll: true,
        filters: {
          startTime: new Date(at - 60_000).toISOString(),
          endTime: new Date(at + 60_000).toISOString(),
        },
      }),
    );
    expect(windowed.items.length).toBeGreaterThan(0);
    for (const item of windowed.items) {
      expect(Math.abs(Date.parse(item.json.occurredAt as string) - at)).toBeLessThanOrEqual(60_000);
    }

    const ids = sample.items.slice(0, 3).map((item) => item.json.id as number);
    const picked = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'event',
        operation: 'getMany',
        returnAll: true,
        filters: { ids: ids.join(', ') },
      }),
    );
    expect(picked.items.map((item) => item.json.id).sort()).toEqual([...ids].sort());
  });

  test('Get Type returns the event type', async () => {
    const type = sim.world.eventTypes[1];
    if (!type) throw new Error('the simulator has too few event types');
    const { items, error } = await runNode(
      engine,
      makeNode(actionType, { resource: 'event', operation: 'getType', eventTypeId: type.id }),
    );
    expect(error).toBeUndefined();
    expect(items[0]?.json).toMatchObject({ id: type.id, name: type.name, description: type.description });
  });
});

describe('Location', () => {
  test('Get by list pick and by id', async () => {
    const location = sim.world.locations[0];
    if (!location) throw new Error('no locations');
    for (const value of [fromList(location.id), byId(` ${location.id} `)]) {
      const { items, error } = await runNode(
        engine,
        makeNode(actionType, { resource: 'location', operation: 'get', location: value }),
      );
      expect(error).toBeUndefined();
      expect(items[0]?.json).toMatchObject({
        id: location.id,
        name: location.name,
        timezone: location.timezone,
      });
    }
  });

  test('Get Many of one organization, and with a limit', async () => {
    const orgId = sim.world.organizations[0]?.id;
    if (orgId === undefined) throw new Error('no organizations');
    const expected = sim.world.locations
      .filter((location) => location.organization_id === orgId)
      .map((l) => l.id);
    const { items } = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'location',
        operation: 'getMany',
        returnAll: true,
        filters: { organizationId: orgId },
      }),
    );
    expect(items.map((item) => item.json.id).sort()).toEqual(expected.sort());

    const limited = await runNode(
      engine,
      makeNode(actionType, { resource: 'location', operation: 'getMany', returnAll: false, limit: 2 }),
    );
    expect(limited.items).toHaveLength(2);
  });
});

describe('Task', () => {
  test('Get returns the detail form with the parsed status', async () => {
    const task = sim.world.tasks[1];
    if (!task) throw new Error('no tasks');
    const { items, error } = await runNode(
      engine,
      makeNode(actionType, { resource: 'task', operation: 'get', task: byId(task.id) }),
    );
    expect(error).toBeUndefined();
    const json = items[0]?.json ?? {};
    expect(json).toMatchObject({ id: task.id, name: task.name, status: task.status });
    expect(json.scheduler).toMatchObject({ type: task.scheduler.type });
    const [category, state] = task.status.split(',').map((part) => part.trim());
    expect(json.statusParsed).toEqual({
      category: category === 'operating' || category === 'non-operating' ? category : 'unknown',
      state: state ?? task.status,
      raw: task.status,
    });
  });

  test('Get Many by location and camera; raw output leaves the service payload untouched', async () => {
    const task = sim.world.tasks[2];
    if (!task) throw new Error('no tasks');
    const expected = sim.world.tasks.filter((t) => t.location_id === task.location_id).map((t) => t.id);
    const atLocation = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'task',
        operation: 'getMany',
        returnAll: true,
        filters: { location: fromList(task.location_id) },
      }),
    );
    expect(atLocation.items.map((item) => item.json.id).sort()).toEqual(expected.sort());
    expect(atLocation.items.every((item) => typeof item.json.statusParsed === 'object')).toBe(true);

    const raw = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'task',
        operation: 'getMany',
        returnAll: true,
        filters: { cameraId: task.camera_id },
        options: { rawOutput: true },
      }),
    );
    expect(raw.items.map((item) => item.json.id)).toContain(task.id);
    expect(raw.items.every((item) => item.json.camera_id === task.camera_id)).toBe(true);
    expect(raw.items.every((item) => item.json.statusParsed === undefined)).toBe(true);
  });
});

describe('One output shape for every resource (issue 34)', () => {
  const snakeKeys = (json: object) => Object.keys(json).filter((key) => key.includes('_'));

  test('a task from Get Many and from Get: the same names for the shared fields, camelCase, scheduler an object', async () => {
    const task = sim.world.tasks[0];
    if (!task) throw new Error('no tasks');
    const many = await runNode(
      engine,
      makeNode(actionType, { resource: 'task', operation: 'getMany', returnAll: true }),
    );
    const one = await runNode(
      engine,
      makeNode(actionType, { resource: 'task', operation: 'get', task: byId(task.id) }),
    );
    expect(many.error ?? one.error).toBeUndefined();
    const listed = many.items.find((item) => item.json.id === task.id)?.json;
    const detail = one.items[0]?.json;
    if (!listed || !detail) throw new Error('the task was not output');
    expect(snakeKeys(listed)).toEqual([]);
    expect(snakeKeys(detail)).toEqual([]);
    // Every field of the list form is in the detail under the same name …
    expect(Object.keys(listed).filter((key) => !(key in detail))).toEqual([]);
    // … and reads the same there: one expression works on both.
    for (const key of [
      'id',
      'name',
      'status',
      'statusParsed',
      'scheduler.type',
      'eventTypeIds',
      'locationId',
      'cameraId',
    ]) {
      const read = (json: object) =>
        key.split('.').reduce<unknown>((value, part) => (value as Record<string, unknown>)?.[part], json);
      expect([key, read(listed)]).toEqual([key, read(detail)]);
    }
    expect(listed.scheduler).toEqual({ type: task.scheduler.type });
    expect(listed).toMatchObject({ locationId: task.location_id, cameraId: task.camera_id });
    expect(listed).not.toHaveProperty('events');
    expect(detail.scheduler).toMatchObject({
      startTime: task.scheduler.start_time,
      endTime: task.scheduler.end_time,
    });
    expect((detail.events as Array<Record<string, unknown>>)[0]).toHaveProperty('detectingDuration');
  });

  test('an event: eventTypeId (not eventId) beside the record id, and form its last field but extra', async () => {
    const { items, error } = await runNode(
      engine,
      makeNode(actionType, { resource: 'event', operation: 'getMany', returnAll: false, limit: 5 }),
    );
    expect(error).toBeUndefined();
    expect(items).toHaveLength(5);
    for (const { json } of items) {
      expect(typeof json.eventTypeId).toBe('number');
      expect(typeof json.id).toBe('number');
      expect(json).not.toHaveProperty('eventId');
      expect(
        Object.keys(json)
          .filter((key) => key !== 'extra')
          .at(-1),
      ).toBe('form');
    }
  });

  test('a location and an event type in camelCase; Output Raw Payload keeps the service JSON', async () => {
    const location = sim.world.locations[0];
    if (!location) throw new Error('no locations');
    const shown = await runNode(
      engine,
      makeNode(actionType, { resource: 'location', operation: 'get', location: byId(location.id) }),
    );
    expect(shown.items[0]?.json).toMatchObject({ id: location.id, organizationId: location.organization_id });
    expect(snakeKeys(shown.items[0]?.json ?? {})).toEqual([]);
    const raw = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'location',
        operation: 'getMany',
        returnAll: true,
        options: { rawOutput: true },
      }),
    );
    expect(raw.items.find((item) => item.json.id === location.id)?.json).toHaveProperty(
      'organization_id',
      location.organization_id,
    );
    const type = sim.world.eventTypes[0];
    if (!type) throw new Error('no event types');
    const typed = await runNode(
      engine,
      makeNode(actionType, { resource: 'event', operation: 'getType', eventTypeId: type.id }),
    );
    expect(typed.items[0]?.json).toEqual({ id: type.id, name: type.name, description: type.description });
  });
});

describe('Media', () => {
  test('Download Snapshot and Download Clip put the file in binary data, keeping the input item', async () => {
    const history = await runNode(
      engine,
      makeNode(actionType, { resource: 'event', operation: 'getMany', limit: 1 }),
    );
    const event = history.items[0];
    if (!event) throw new Error('no history');

    const snapshot = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'media',
        operation: 'downloadSnapshot',
        url: '={{ $json.imageUrl }}',
        binaryPropertyName: 'snapshot',
      }),
      [event],
    );
    expect(snapshot.error).toBeUndefined();
    const image = snapshot.items[0]?.binary?.snapshot;
    expect(image?.mimeType).toMatch(/^image\//);
    expect(Buffer.from(image?.data ?? '', 'base64').length).toBeGreaterThan(100);
    expect(snapshot.items[0]?.json.eventName).toBe(event.json.eventName);
    expect(JSON.stringify(snapshot.items[0]?.binary)).not.toContain(sim.token);

    const clip = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'media',
        operation: 'downloadClip',
        url: '={{ $json.videoUrl }}',
        binaryPropertyName: 'data',
      }),
      [event],
    );
    expect(clip.error).toBeUndefined();
    expect(clip.items[0]?.binary?.data?.mimeType).toMatch(/^video\//);
    expect(
      Number(clip.items[0]?.binary?.data?.bytes ?? 0) ||
        Buffer.from(clip.items[0]?.binary?.data?.data ?? '', 'base64').length,
    ).toBeGreaterThan(0);
  });

  test('Get Annotated Snapshot draws the event objects on its snapshot (core draws, the node returns binary)', async () => {
    const history = await runNode(
      engine,
      makeNode(actionType, { resource: 'event', operation: 'getMany', limit: 30 }),
    );
    const event = history.items.find((item) => (item.json.objects as unknown[]).length > 0);
    if (!event) throw new Error('no event with objects in the history');
    const plain = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'media',
        operation: 'downloadSnapshot',
        url: '={{ $json.imageUrl }}',
        binaryPropertyName: 'data',
      }),
      [event],
    );
    const annotated = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'media',
        operation: 'annotatedSnapshot',
        event: '={{ $json }}',
        annotateOptions: { format: 'png', lineWidth: 3 },
        binaryPropertyName: 'annotated',
      }),
      [event],
    );
    expect(annotated.error).toBeUndefined();
    const item = annotated.items[0];
    expect(item?.pairedItem).toEqual({ item: 0 });
    expect(item?.binary?.annotated?.mimeType).toBe('image/png');
    expect(item?.binary?.annotated?.fileName).toMatch(/-annotated\.png$/);
    expect(item?.json.annotatedObjects).toBeGreaterThan(0);
    expect(item?.json.annotatedObjects).toBeLessThanOrEqual((event.json.objects as unknown[]).length);
    const before = Buffer.from(plain.items[0]?.binary?.data?.data ?? '', 'base64');
    const after = Buffer.from(item?.binary?.annotated?.data ?? '', 'base64');
    expect(after.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(after.equals(before)).toBe(false);
  });

  test('a snapshot not written yet is waited for up to Snapshot Wait; then the error says so and names the field', {
    timeout: 30_000,
  }, async () => {
    const task = sim.world.tasks[0]?.id ?? 1;
    const [late, never] = await sim.control.emit(2, {
      taskIds: [task],
      latenessMs: 0,
      snapshotDelayMs: 1_500,
    });
    if (!late || !never) throw new Error('no events emitted');
    const download = (imageUrl: string, snapshotWaitSeconds: unknown) =>
      runNode(
        engine,
        makeNode(actionType, {
          resource: 'media',
          operation: 'downloadSnapshot',
          url: '={{ $json.imageUrl }}',
          snapshotWaitSeconds: snapshotWaitSeconds as number,
          binaryPropertyName: 'data',
        }),
        [{ json: { imageUrl } }],
      );
    const urlOf = async (id: number) => {
      const found = await runNode(
        engine,
        makeNode(actionType, {
          resource: 'event',
          operation: 'getMany',
          limit: 5,
          filters: { ids: String(id) },
        }),
      );
      return String(found.items[0]?.json.imageUrl);
    };
    // Written 1.5 s after publication: the default wait (10 s, as the trigger's) gets it.
    const waited = await download(await urlOf(late.id), 10);
    expect(waited.error).toBeUndefined();
    expect(waited.items[0]?.binary?.data?.mimeType).toMatch(/^image\//);

    const [missing] = await sim.control.emit(1, { taskIds: [task], latenessMs: 0, snapshotDelayMs: 'never' });
    if (!missing) throw new Error('no event emitted');
    const failed = await download(await urlOf(missing.id), 1);
    expect(failed.error?.message).toMatch(
      /not there after waiting \d\.\d s \(the service had not written it yet\)/,
    );
    expect(failed.error?.message).toContain('raise Snapshot Wait (Seconds)');
    expect(failed.error?.message).not.toContain('no media wait');
    expect(failed.error?.message).not.toContain(sim.token);

    const refused = await download(await urlOf(late.id), -1);
    expect(refused.error?.message).toBe(
      'Snapshot Wait (Seconds) must be a number of seconds from 0 to 600, not -1',
    );
  });

  test('Get Annotated Snapshot refuses an item that is not an event, naming the field', async () => {
    const { error } = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'media',
        operation: 'annotatedSnapshot',
        event: '={{ $json }}',
        binaryPropertyName: 'data',
      }),
      [{ json: { hello: 'world' } }],
    );
    expect(error?.message).toMatch(
      /^Invalid Event: got an event without it; expected an event that has an image URL/,
    );
  });

  test('a media URL on a host that is not trusted is refused before the token is sent', async () => {
    const { error } = await runNode(
      engine,
      makeNode(actionType, {
        resource: 'media',
        operation: 'downloadSnapshot',
        url: 'http://127.0.0.2:9/x.jpg',
        binaryPropertyName: 'data',
      }),
    );
    expect(error?.message).toMatch(/^Invalid Snapshot URL: got a URL on http:\/\/127\.0\.0\.2:9/);
    expect(error?.message).not.toContain(sim.token);
  });
});

describe('authentication', () => {
  test('email and password log in once and read', async () => {
    const loginsBefore = sim.control.stats().logins;
    const loginEngine = await createEngine(loginCredential(sim));
    const { items, error } = await runNode(
      loginEngine,
      makeNode(actionType, { resource: 'task', operation: 'getMany', returnAll: false, limit: 3 }),
      [{ json: {} }, { json: {} }],
    );
    expect(error).toBeUndefined();
    expect(items).toHaveLength(6);
    expect(items.map((item) => item.pairedItem)).toEqual([
      { item: 0 },
      { item: 0 },
      { item: 0 },
      { item: 1 },
      { item: 1 },
      { item: 1 },
    ]);
    expect(sim.control.stats().logins - loginsBefore).toBe(1);

    // Later executions (a workflow run per event) and editor calls reuse the token: no new login.
    for (let run = 0; run < 3; run++) {
      const again = await runNode(
        loginEngine,
        makeNode(actionType, { resource: 'location', operation: 'getMany', returnAll: false, limit: 1 }),
      );
      expect(again.error).toBeUndefined();
    }
    await listSearch(
      loginEngine,
      makeNode(actionType, { resource: 'task', operation: 'get' }),
      'searchTasks',
    );
    expect(sim.control.stats().logins - loginsBefore).toBe(1);
  });

  test('a changed password is a different credential: it logs in anew and fails, never reusing the old token', async () => {
    const wrong = await createEngine(loginCredential(sim, { password: 'changed-password-1' }));
    const { error } = await runNode(
      wrong,
      makeNode(actionType, { resource: 'location', operation: 'getMany', limit: 1 }),
    );
    expect(error?.message).toMatch(/40[13]|refused|login/i);
    expect(error?.message).not.toContain('changed-password-1');
  });
});
