import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorOptions } from '../options.js';
import { type Simulator, startSimulator } from '../simulator.js';
import { call, control, Listener, realtimeUrl } from '../testing/sim-client.js';
import type { BasicEventPayload, ExtendedEventPayload } from '../types.js';

/**
 * `media`: what events' image_url / video_url hold. 'none' is a deployment that stores no media
 * (empty URLs), 'shared' one whose events point at their camera's files; with either, two events
 * of one kind on one task in one second can be identical in the basic form (`emit({ like })`).
 */

const started: Simulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.stop()));
});

async function simulator(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator({ historySize: 200, ...options });
  started.push(sim);
  return sim;
}

const media = (sim: Simulator, path: string) => call(sim, path.startsWith('http') ? path : `/media/${path}`);

describe("media 'none'", () => {
  it('sends empty image_url and video_url in history and live frames, both forms', async () => {
    const sim = await simulator({ media: 'none' });
    const extended = await Listener.open(realtimeUrl(sim, '0'));
    const task = sim.world.tasks[0]?.id as number;
    const basic = await Listener.open(realtimeUrl(sim, `basic:${task}`));
    await sim.control.emit(3, { taskIds: [task], latenessMs: 0 });
    await extended.waitFor(3);
    await basic.waitFor(3);
    const rows = [
      ...(await call<ExtendedEventPayload[]>(sim, '/events/history?limit=100')).body,
      ...(await call<BasicEventPayload[]>(sim, '/events/history?limit=100', { as: 'basic' })).body,
      ...extended.json<ExtendedEventPayload>(),
      ...basic.json<BasicEventPayload>(),
    ];
    expect(rows.length).toBe(206);
    for (const row of rows) expect([row.image_url, row.video_url]).toEqual(['', '']);
    extended.close();
    basic.close();
  });

  it('has no files: every media URL answers 404', async () => {
    const sim = await simulator({ media: 'none' });
    for (const path of ['snapshots/5.png', 'clips/5.mp4', 'snapshots/task-1.png', 'clips/task-1.mp4']) {
      expect((await media(sim, path)).status, path).toBe(404);
    }
    expect(sim.control.stats().mediaNotFound).toBe(4);
  });
});

describe("media 'shared'", () => {
  it("gives every event of a task the same URLs, which serve the task's frame and clip", async () => {
    const sim = await simulator({ media: 'shared' });
    const rows = (await call<ExtendedEventPayload[]>(sim, '/events/history?limit=100')).body;
    const byTask = new Map<number, Set<string>>();
    for (const row of rows) {
      const urls = byTask.get(row.task_id) ?? new Set<string>();
      urls.add(`${row.image_url} ${row.video_url}`);
      byTask.set(row.task_id, urls);
    }
    expect(byTask.size).toBeGreaterThan(1);
    for (const urls of byTask.values()) expect(urls.size).toBe(1);
    const [one] = rows;
    const image = await media(sim, `${one?.image_url}?auth_token=${sim.token}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    const clip = await media(sim, `${one?.video_url}?auth_token=${sim.token}`);
    expect(clip.status).toBe(200);
    expect(clip.headers.get('content-type')).toBe('video/mp4');
    // Per-event files do not exist there, nor the files of a task that does not.
    expect((await media(sim, `snapshots/${one?.id}.png`)).status).toBe(404);
    expect((await media(sim, 'clips/task-999.mp4')).status).toBe(404);
  });
});

describe('media option', () => {
  it("keeps 'unique' by default: a file of its own per event", async () => {
    const sim = await simulator({});
    const [row] = (await call<ExtendedEventPayload[]>(sim, '/events/history?limit=1')).body;
    expect(row?.image_url).toBe(`${sim.apiUrl}/media/snapshots/${row?.id}.png`);
    expect(row?.video_url).toBe(`${sim.apiUrl}/media/clips/${row?.id}.mp4`);
  });
});

describe('emit({ like }): twins', () => {
  it("with media 'none' two events of one kind on one task in one second are identical in the basic form", async () => {
    const sim = await simulator({ media: 'none', historySize: 0 });
    const task = sim.world.tasks[0]?.id as number;
    const basic = await Listener.open(realtimeUrl(sim, `basic:${task}`));
    const extended = await Listener.open(realtimeUrl(sim, '0'));
    const [original] = await sim.control.emit(1, { taskIds: [task], latenessMs: 0 });
    const answer = await control<{ result: { lastId: number } }>(sim, 'emit', {
      count: 1,
      like: original?.id,
    });
    expect(answer.status).toBe(200);
    const twin = answer.body.result.lastId;
    await basic.waitFor(2);
    await extended.waitFor(2);
    expect(basic.messages[1]).toBe(basic.messages[0]);
    const [a, b] = extended.json<ExtendedEventPayload>();
    expect([a?.id, b?.id]).toEqual([original?.id, twin]);
    expect({ ...b, id: a?.id }).toEqual(a);
    // History has both, as two identical basic rows.
    const rows = (await call<BasicEventPayload[]>(sim, '/events/history?limit=100', { as: 'basic' })).body;
    expect(rows).toHaveLength(2);
    expect(rows[1]).toEqual(rows[0]);
    expect(JSON.parse(basic.messages[0] as string)).toEqual(rows[0]);
    basic.close();
    extended.close();
  });

  it("with media 'unique' twins differ only in their URLs", async () => {
    const sim = await simulator({});
    const [original] = await sim.control.emit(1, { latenessMs: 0 });
    const [twin] = await sim.control.emit(2, { like: original?.id });
    const strip = (event: typeof original) => ({ ...event, id: 0, image_url: '', video_url: '' });
    expect(strip(twin)).toEqual(strip(original));
    expect(twin?.image_url).not.toBe(original?.image_url);
    // A twin of a seeded event takes that event's (old) second.
    const [old] = await sim.control.emit(1, { like: 7 });
    expect(old?.timestamp).toBe(sim.getEvent(7)?.timestamp);
    expect(old?.task_id).toBe(sim.getEvent(7)?.task_id);
  });

  it('rejects a like that is no record, or given with taskIds or latenessMs, naming the field', async () => {
    const sim = await simulator({});
    await expect(sim.control.emit(1, { like: 0 })).rejects.toThrow(
      'emit: like must be the record id of an existing event, from 1 to 200, got 0',
    );
    await expect(sim.control.emit(1, { like: 5, taskIds: [1] })).rejects.toThrow(
      "emit: like repeats its event's task and second, so taskIds and latenessMs cannot be given with it",
    );
    const refused = await control<{ detail: string }>(sim, 'emit', { count: 1, like: 'x' });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe('"like" must be a number, got "x"');
  });
});
