import { afterEach, describe, expect, it } from 'vitest';
import { parseCliArgs } from '../cli-args.js';
import type { SimulatorOptions } from '../options.js';
import { type Simulator, startSimulator } from '../simulator.js';
import { call, control, Listener, realtimeUrl } from '../testing/sim-client.js';
import type { ExtendedEventPayload } from '../types.js';

/**
 * firstRecordId: a simulator restarted under a host that kept its state (n8n deduplicates its
 * executions by event id) starts above the last run's ids, as a real service never reuses one.
 * Only the ids move: content, times and every id-based path (history, ids filter, media, emit
 * like) follow.
 */

const started: Simulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.stop()));
});

async function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({
    seed: 5,
    historySize: 30,
    historyEnd: Date.UTC(2026, 0, 1),
    ...options,
  });
  started.push(sim);
  return sim;
}

/** Ids of every history record, newest first. */
async function historyIds(sim: Simulator): Promise<number[]> {
  const answer = await call<ExtendedEventPayload[]>(sim, '/events/history?limit=100');
  expect(answer.status).toBe(200);
  return answer.body.map((row) => row.id);
}

/** `count` live events as a realtime socket receives them. */
async function liveIds(sim: Simulator, count: number): Promise<number[]> {
  const listener = await Listener.open(realtimeUrl(sim, '0'));
  try {
    await sim.control.emit(count);
    await listener.waitFor(count);
    return listener.json<ExtendedEventPayload>().map((event) => event.id);
  } finally {
    listener.close();
  }
}

describe('firstRecordId', () => {
  it("a restart from the last run's newest id + 1 gives only ids above every id of the run before, seeded and live", async () => {
    const first = await simulator();
    const before = [...(await historyIds(first)), ...(await liveIds(first, 5))];
    const last = first.control.stats().lastRecordId;
    expect(last).toBe(35);
    expect(Math.max(...before)).toBe(last);
    await first.stop();

    const again = await simulator({ firstRecordId: last + 1 });
    expect(again.control.stats()).toMatchObject({ firstRecordId: 36, historySeeded: 30, lastRecordId: 65 });
    const seeded = await historyIds(again);
    const live = await liveIds(again, 5);
    expect(seeded).toHaveLength(30);
    expect(Math.min(...seeded, ...live)).toBeGreaterThan(Math.max(...before));
    expect(live).toEqual([66, 67, 68, 69, 70]);
    // Over HTTP the same: the control endpoint reports the new ids.
    const stats = await control<{ result: { lastRecordId: number } }>(again, 'stats');
    expect(stats.body.result.lastRecordId).toBe(70);
  });

  it('moves only the ids: the same seed gives the same events in the same order under other ids', async () => {
    const plain = await simulator();
    const moved = await simulator({ firstRecordId: 1001 });
    const strip = ({ id, image_url, video_url, ...rest }: ExtendedEventPayload) => rest;
    for (const k of [1, 17, 30]) {
      const a = plain.getEvent(k) as ExtendedEventPayload;
      const b = moved.getEvent(1000 + k) as ExtendedEventPayload;
      expect(b.id).toBe(1000 + k);
      expect(b.image_url).toContain(`/snapshots/${1000 + k}.png`);
      expect(strip(b)).toEqual(strip(a));
    }
    expect(moved.getEvent(1000)).toBeUndefined();
    expect(moved.getEvent(1031)).toBeUndefined();
  });

  it('the ids filter, media, emit like and mediaReadyAt take the moved ids', async () => {
    const sim = await simulator({ firstRecordId: 500 });
    const [live] = await sim.control.emit(1, { snapshotDelayMs: 0 });
    expect(live?.id).toBe(530);
    const byIds = await call<ExtendedEventPayload[]>(sim, '/events/history?ids=1,500,529,530');
    expect(byIds.body.map((row) => row.id).sort()).toEqual([500, 529, 530]);
    const snapshot = await fetch(`${live?.image_url}?auth_token=${sim.token}`);
    expect(snapshot.status).toBe(200);
    const clip = await fetch(`${sim.apiUrl}/media/clips/529.mp4?auth_token=${sim.token}`);
    expect(clip.status).toBe(200);
    const missing = await fetch(`${sim.apiUrl}/media/clips/29.mp4?auth_token=${sim.token}`);
    expect(missing.status).toBe(404);
    const [twin] = await sim.control.emit(1, { like: 510 });
    const original = sim.getEvent(510) as ExtendedEventPayload;
    expect(twin?.id).toBe(531);
    expect(twin?.detected_objects).toEqual(original.detected_objects);
    await expect(sim.control.emit(1, { like: 10 })).rejects.toThrow(/from 500 to 531, got 10/);
    expect(sim.control.mediaReadyAt(531)).toEqual({
      snapshotAt: expect.any(Number),
      clipAt: expect.any(Number),
    });
    expect(() => sim.control.mediaReadyAt(499)).toThrow(/from 500 to 531, got 499/);
  });

  it('is checked, and the CLI reads it', async () => {
    await expect(simulator({ firstRecordId: 0 })).rejects.toThrow(
      /firstRecordId must be an integer from 1 to \d+, got 0/,
    );
    expect(parseCliArgs(['--first-record-id', '7001']).options.firstRecordId).toBe(7001);
    expect(() => parseCliArgs(['--first-record-id', 'x'])).toThrow(
      /--first-record-id must be an integer from 1/,
    );
  });
});
