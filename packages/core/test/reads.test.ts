import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/index.js';
import { client, optionsFor, simulator, toArray } from './helpers.js';

describe('reads against the simulator, extended form', () => {
  it('lists, pages and gets tasks in list and detail form, with every filter', async () => {
    const sim = await simulator({ form: 'extended' });
    const c = client(optionsFor(sim));
    const world = sim.world.tasks;

    const all = await toArray(c.tasks.all({ limit: 5 }));
    expect(all.map((t) => t.id)).toEqual(world.map((t) => t.id));
    const first = all[0];
    expect(typeof first?.scheduler).toBe('string');
    expect(Array.isArray(first?.events) && typeof first?.events[0]).toBe('number');

    const page = await c.tasks.list({ offset: 2, limit: 3 });
    expect(page.map((t) => t.id)).toEqual(world.slice(2, 5).map((t) => t.id));

    const target = world[3];
    if (!target) throw new Error('the simulator has too few tasks');
    expect(
      (await c.tasks.list({ locationId: target.location_id })).every(
        (t) => t.location_id === target.location_id,
      ),
    ).toBe(true);
    expect((await c.tasks.list({ cameraId: target.camera_id })).map((t) => t.id)).toContain(target.id);
    expect((await c.tasks.list({ ids: [world[0]?.id ?? 0, target.id] })).map((t) => t.id)).toEqual([
      world[0]?.id,
      target.id,
    ]);

    const detail = await c.tasks.get(target.id);
    expect(detail.id).toBe(target.id);
    expect(detail.scheduler).toMatchObject({
      type: expect.any(String),
      start_time: expect.stringMatching(/^\d\d:\d\d$/),
    });
    expect(detail.events[0]?.zones[0]?.geometry.type).toBe('MultiPolygon');
    expect(typeof detail.confidence_threshold).toBe('object');
    await expect(c.tasks.get(99_999)).rejects.toMatchObject({ code: 'HTTP_ERROR', status: 404 });
    await expect(c.tasks.get('1; drop')).rejects.toBeInstanceOf(ValidationError);
  });

  it('passes unknown task fields through untouched', async () => {
    const sim = await simulator({ form: 'extended' });
    const added = sim.control.addTask({ camera: { id: 9, name: 'Gate' }, custom_flag: true } as never);
    const c = client(optionsFor(sim));
    const listed = (await toArray(c.tasks.all())).find((t) => t.id === added.id);
    expect(listed?.camera).toEqual({ id: 9, name: 'Gate' });
    expect(listed?.custom_flag).toBe(true);
  });

  it('lists, pages and gets locations, filtered by organization and ids', async () => {
    const sim = await simulator({ form: 'extended' });
    const c = client(optionsFor(sim));
    const world = sim.world.locations;
    expect((await toArray(c.locations.all({ limit: 3 }))).map((l) => l.id)).toEqual(world.map((l) => l.id));
    const org = world[0]?.organization_id ?? 1;
    const inOrg = await c.locations.list({ organizationId: org });
    expect(inOrg.map((l) => l.id)).toEqual(world.filter((l) => l.organization_id === org).map((l) => l.id));
    const someId = world[1]?.id ?? 1;
    expect((await c.locations.list({ ids: String(someId) })).map((l) => l.id)).toEqual([someId]);
    const one = await c.locations.get(someId);
    expect(one).toEqual(world[1]);
    expect(one.coordinates.latitude).toEqual(expect.any(Number));
    await expect(c.locations.get(0)).rejects.toThrow(/Invalid locationId: got number 0/);
  });

  it('reads event types one by one and lists them through the tasks, cached per client', async () => {
    const sim = await simulator({ form: 'extended' });
    const c = client(optionsFor(sim));
    const type = await c.events.getType(2001);
    expect(type).toEqual(sim.world.eventTypes.find((t) => t.id === 2001));
    const listed = await c.events.listTypes();
    const referenced = new Set(sim.world.tasks.flatMap((t) => t.events.map((e) => e.id)));
    expect(listed.map((t) => t.id)).toEqual([...referenced].sort((a, b) => a - b));
    const before = sim.control.stats().requests;
    await c.events.getType(2001);
    expect(sim.control.stats().requests).toBe(before);
    await expect(c.events.getType(424242)).rejects.toMatchObject({ status: 404 });
  });

  it('queries history with every filter and normalizes the extended payload', async () => {
    const sim = await simulator({ form: 'extended', historySize: 400 });
    const c = client(optionsFor(sim, { form: 'extended' }));
    const page = await c.events.history();
    expect(page).toHaveLength(100);
    const sample = page[0];
    if (!sample?.id) throw new Error('expected an extended event');
    expect(sample.form).toBe('extended');
    expect(sample.occurredAt).toBeInstanceOf(Date);

    const byTask = await c.events.history({ taskId: sample.taskId, limit: 100 });
    expect(byTask.length).toBeGreaterThan(0);
    expect(byTask.every((e) => e.taskId === sample.taskId)).toBe(true);
    expect(
      (await c.events.history({ eventName: sample.eventName })).every(
        (e) => e.eventName === sample.eventName,
      ),
    ).toBe(true);
    // Filtered by the event type under the name an event carries it by; the former name still works.
    const byType = await c.events.history({ eventTypeId: sample.eventTypeId });
    expect(byType.length).toBeGreaterThan(0);
    expect(byType.every((e) => e.eventTypeId === sample.eventTypeId)).toBe(true);
    expect((await c.events.history({ eventId: sample.eventTypeId })).map((e) => e.id)).toEqual(
      byType.map((e) => e.id),
    );
    expect(
      (await c.events.history({ locationId: sample.locationId ?? 0 })).every(
        (e) => e.locationId === sample.locationId,
      ),
    ).toBe(true);
    expect(
      (await c.events.history({ cameraId: sample.cameraId ?? 0 })).every(
        (e) => e.cameraId === sample.cameraId,
      ),
    ).toBe(true);
    const ids = page.slice(0, 3).map((e) => e.id ?? 0);
    expect((await c.events.history({ ids })).map((e) => e.id).sort()).toEqual([...ids].sort());

    const window = await c.events.history({ startTime: sample.occurredAt, endTime: sample.occurredAt });
    expect(window.map((e) => e.id)).toContain(sample.id);
    expect(window.every((e) => e.occurredAt.getTime() === sample.occurredAt.getTime())).toBe(true);

    const offsetPage = await c.events.history({ offset: 10, limit: 5 });
    expect(offsetPage.map((e) => e.id)).toEqual(page.slice(10, 15).map((e) => e.id));
    await expect(c.events.history({ task: 1 } as never)).rejects.toThrow(/history filter name/);
  });
});

describe('reads against the simulator, basic form', () => {
  it('reads basic payloads without a service id and refuses extended-only filters up front', async () => {
    const sim = await simulator({ form: 'basic', historySize: 50 });
    const c = client(optionsFor(sim, { serviceId: undefined, form: 'basic' }));
    const events = await c.events.history({ limit: 10 });
    expect(events).toHaveLength(10);
    expect(events.every((e) => e.form === 'basic' && e.id === undefined)).toBe(true);
    expect(events.some((e) => e.licensePlate !== undefined)).toBe(true);
    expect((await c.tasks.list()).length).toBe(sim.world.tasks.length);
    await expect(c.events.history({ locationId: 1 })).rejects.toThrow(/only in the extended form/);
  });

  it('auto form refuses extended-only filters when the service answers in the basic form (it would ignore them)', async () => {
    const sim = await simulator({ form: 'basic', historySize: 50 });
    const c = client(optionsFor(sim, { serviceId: undefined }));
    const error = await c.events.history({ locationId: 11 }).catch((e: unknown) => e);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).parameter).toBe('locationId');
    expect((error as Error).message).toContain('the service answers in the basic form');
    await expect(c.events.collectHistory({ ids: [1, 2] }, { max: 5 })).rejects.toThrow(/no ids filter/);
  });

  it('form both: the same simulator answers basic without a service id and extended with one', async () => {
    const sim = await simulator({ form: 'both', historySize: 20 });
    const basic = client(optionsFor(sim, { serviceId: undefined }));
    const extended = client(optionsFor(sim));
    expect((await basic.events.history({ limit: 1 }))[0]?.form).toBe('basic');
    expect((await extended.events.history({ limit: 1 }))[0]?.form).toBe('extended');
  });
});
