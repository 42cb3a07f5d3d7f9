import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../simulator.js';
import { call } from '../testing/sim-client.js';
import type { EventType, Location, Task, TaskListItem } from '../types.js';
import { TASK_STATUSES } from '../world/catalog.js';

describe('locations, tasks and event types', () => {
  let sim: Simulator;
  let basic: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ form: 'extended', historySize: 10 });
    basic = await startSimulator({ form: 'basic', historySize: 10 });
  });
  afterAll(async () => {
    await Promise.all([sim.stop(), basic.stop()]);
  });

  it('GET /locations lists locations in several IANA zones with coordinates, filtered by organization_id', async () => {
    const { status, body } = await call<Location[]>(sim, '/locations');
    expect(status).toBe(200);
    expect(body).toEqual(sim.world.locations);
    expect(new Set(body.map((l) => l.timezone)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(body.map((l) => l.organization_id)).size).toBeGreaterThanOrEqual(2);
    for (const location of body) {
      expect(Object.keys(location).sort()).toEqual([
        'coordinates',
        'id',
        'name',
        'organization_id',
        'timezone',
      ]);
      expect(location.timezone).toMatch(/^[A-Z][a-z]+\/[A-Za-z_]+$/);
      expect(Math.abs(location.coordinates.latitude)).toBeLessThanOrEqual(90);
    }
    const org = body[0]?.organization_id as number;
    const filtered = (await call<Location[]>(sim, `/locations?organization_id=${org}`)).body;
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((l) => l.organization_id === org)).toBe(true);
    expect((await call<Location[]>(sim, '/locations?organization_id=999')).body).toEqual([]);
  });

  it('GET /locations pages with offset/limit and takes ids (extended only)', async () => {
    const all = (await call<Location[]>(sim, '/locations')).body;
    expect((await call<Location[]>(sim, '/locations?offset=2&limit=3')).body).toEqual(all.slice(2, 5));
    const ids = [all[1]?.id, all[3]?.id].join(',');
    expect((await call<Location[]>(sim, `/locations?ids=${ids}`)).body.map((l) => l.id)).toEqual([
      all[1]?.id,
      all[3]?.id,
    ]);
    expect((await call<Location[]>(basic, `/locations?ids=${ids}`)).body).toHaveLength(all.length);
    expect((await call(sim, '/locations?limit=1001')).status).toBe(422);
    expect((await call(sim, '/locations?organization_id=x')).status).toBe(422);
  });

  it('GET /locations/:id answers one location, 404 when unknown, 422 when not an integer', async () => {
    const first = sim.world.locations[0] as Location;
    expect((await call(sim, `/locations/${first.id}`)).body).toEqual(first);
    const missing = await call(sim, '/locations/4242');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Location not found' });
    const bad = await call<{ detail: Array<{ loc: string[] }> }>(sim, '/locations/abc');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]?.loc).toEqual(['path', 'location_id']);
  });

  it('GET /tasks answers the list form: scheduler as a kind string, events as ids', async () => {
    const { body } = await call<TaskListItem[]>(sim, '/tasks');
    expect(body.length).toBeGreaterThanOrEqual(TASK_STATUSES.length);
    for (const task of body) {
      expect(['24/7', 'daily', 'weekly']).toContain(task.scheduler);
      expect(task.events.every((id) => Number.isInteger(id))).toBe(true);
      expect(task.camera_rtsp).toMatch(/^rtsp:\/\/[^/:]+:\d+\/.+/);
      expect(task).not.toHaveProperty('confidence_threshold');
    }
    // Every status of the spec, including the bare `video`, and every scheduler kind.
    expect(new Set(body.map((t) => t.status))).toEqual(new Set(TASK_STATUSES));
    expect(new Set(body.map((t) => t.scheduler))).toEqual(new Set(['24/7', 'daily', 'weekly']));
    // Some deployments add nested objects; the simulator serves a few so pass-through gets tested.
    expect(body.some((t) => typeof (t as unknown as Record<string, unknown>).camera === 'object')).toBe(true);
    // Every event type appears in some task: clients discover types from tasks.
    expect(new Set(body.flatMap((t) => t.events))).toEqual(new Set(sim.world.eventTypes.map((t) => t.id)));
  });

  it('GET /tasks filters by location_id, camera_id, ids (extended) and pages', async () => {
    const all = (await call<TaskListItem[]>(sim, '/tasks')).body;
    const sample = all[0] as TaskListItem;
    const byLocation = (await call<TaskListItem[]>(sim, `/tasks?location_id=${sample.location_id}`)).body;
    expect(byLocation.length).toBeGreaterThanOrEqual(2);
    expect(byLocation.every((t) => t.location_id === sample.location_id)).toBe(true);
    const byCamera = (await call<TaskListItem[]>(sim, `/tasks?camera_id=${sample.camera_id}`)).body;
    expect(byCamera.every((t) => t.camera_id === sample.camera_id)).toBe(true);
    expect(byCamera.map((t) => t.id)).toContain(sample.id);
    expect((await call<TaskListItem[]>(sim, '/tasks?ids=3,1')).body.map((t) => t.id)).toEqual([1, 3]);
    expect((await call<TaskListItem[]>(basic, '/tasks?ids=3,1')).body.length).toBe(all.length);
    expect((await call<TaskListItem[]>(sim, '/tasks?offset=10&limit=2')).body).toEqual(all.slice(10, 12));
    expect((await call(sim, '/tasks?camera_id=one')).status).toBe(422);
  });

  it('GET /tasks/:id answers the detail form with schedule object, zones, thresholds and size filters', async () => {
    for (const summary of sim.world.tasks) {
      const { status, body } = await call<Task>(sim, `/tasks/${summary.id}`);
      expect(status).toBe(200);
      expect(body.scheduler.type).toMatch(/^(24\/7|daily|weekly)$/);
      expect(body.scheduler.start_time).toMatch(/^\d{2}:\d{2}$/);
      expect(body.scheduler.end_time).toMatch(/^\d{2}:\d{2}$/);
      expect(Number.isInteger(body.scheduler.interval)).toBe(true);
      expect(body.events.length).toBeGreaterThan(0);
      for (const event of body.events) {
        expect(typeof event.detecting_duration).toBe('number');
        expect(typeof event.detecting_threshold).toBe('number');
        expect(typeof event.interval).toBe('number');
        for (const zone of event.zones) {
          expect(zone.geometry.type).toBe('MultiPolygon');
          for (const polygon of zone.geometry.coordinates) {
            for (const ring of polygon) {
              expect(ring.length).toBeGreaterThanOrEqual(4);
              expect(ring[ring.length - 1]).toEqual(ring[0]);
              for (const point of ring)
                for (const value of point) expect(value >= 0 && value <= 1).toBe(true);
            }
          }
        }
      }
      for (const [name, threshold] of Object.entries(body.confidence_threshold)) {
        expect(threshold).toBeGreaterThan(0);
        expect(body.object_size_filter[name]).toHaveLength(4);
      }
    }
    const missing = await call(sim, '/tasks/999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Task not found' });
    expect((await call(sim, '/tasks/1x')).status).toBe(422);
  });

  it('GET /events/types/:id answers {id, name, description}; 404 unknown; 422 not an integer', async () => {
    const types = sim.world.eventTypes;
    expect(types.length).toBeGreaterThanOrEqual(8);
    for (const type of types) {
      expect(type.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect((await call<EventType>(sim, `/events/types/${type.id}`)).body).toEqual(type);
    }
    const missing = await call(sim, '/events/types/1');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Event type not found' });
    expect((await call(sim, '/events/types/fire')).status).toBe(422);
  });

  it('unknown paths are 404 {"detail":"Not Found"}, wrong methods 405, trailing slashes tolerated', async () => {
    const unknown = await call(sim, '/cameras');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Not Found' });
    expect((await fetch(`${sim.siteUrl}/elsewhere`)).status).toBe(404);
    const wrong = await call(sim, '/tasks', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect((await call(sim, '/users/token', { method: 'GET' })).status).toBe(405);
    expect((await call(sim, '/tasks/')).status).toBe(200);
  });

  it('a custom prefix moves every endpoint', async () => {
    const custom = await startSimulator({ prefix: '/observ/api', historySize: 5 });
    try {
      expect(custom.apiUrl).toBe(`${custom.siteUrl}/observ/api`);
      expect((await call(custom, '/tasks')).status).toBe(200);
      expect((await fetch(`${custom.siteUrl}/apiserver/tasks`)).status).toBe(404);
    } finally {
      await custom.stop();
    }
  });
});
