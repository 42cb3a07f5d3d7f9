/**
 * `mediaDelay` and the emit overrides: a live event's snapshot and clip exist only once written,
 * observed over real HTTP. Waiting for a file to appear polls with a deadline; absence is shown
 * by the answer itself and by the simulator's counters.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorOptions } from '../options.js';
import { type Simulator, startSimulator } from '../simulator.js';
import { control } from '../testing/sim-client.js';
import type { SimulatedEvent } from '../types.js';
import { MediaSchedule } from './media-schedule.js';

const OFF = { snapshotMs: { min: 0, max: 0 }, clipMs: { min: 0, max: 0 }, busyMs: 0 };

const running: Simulator[] = [];
async function simulator(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator({ historySize: 20, ...options });
  running.push(sim);
  return sim;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

interface Answer {
  status: number;
  at: number;
  body: string;
  headers: Headers;
}

async function get(sim: Simulator, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${url}?auth_token=${encodeURIComponent(sim.token)}`, { headers });
  const body = Buffer.from(await response.arrayBuffer()).toString('latin1');
  return { status: response.status, at: Date.now(), body, headers: response.headers };
}

/** GETs `url` every 25 ms until it answers 200 (or the deadline passes); returns every answer. */
async function untilServed(sim: Simulator, url: string, deadlineMs = 5000): Promise<Answer[]> {
  const answers: Answer[] = [];
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const answer = await get(sim, url);
    answers.push(answer);
    if (answer.status === 200) return answers;
    if (Date.now() > deadline) throw new Error(`${url} still answers ${answer.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function emitOne(sim: Simulator, options: Parameters<Simulator['control']['emit']>[1] = {}) {
  const [event] = await sim.control.emit(1, { taskIds: [1], ...options });
  return event as SimulatedEvent;
}

describe('MediaSchedule', () => {
  const delay = { snapshotMs: { min: 500, max: 8000 }, clipMs: { min: 6000, max: 40_000 }, busyMs: 0 };

  it('draws each live record its times from the seed and id, within the ranges', () => {
    const times = (seed: number) => {
      const schedule = new MediaSchedule(seed, 100, delay);
      for (let id = 101; id <= 300; id++) schedule.published(id, 1_000_000, 999_000);
      return Array.from({ length: 200 }, (_, n) => schedule.readyAt(101 + n));
    };
    const drawn = times(3);
    for (const { snapshotAtMs, clipAtMs } of drawn) {
      expect(snapshotAtMs).toBeGreaterThanOrEqual(1_000_500);
      expect(snapshotAtMs).toBeLessThanOrEqual(1_008_000);
      // The clip: recording and writing after the event occurred (999,000).
      expect(clipAtMs).toBeGreaterThanOrEqual(1_005_000);
      expect(clipAtMs).toBeLessThanOrEqual(1_039_000);
    }
    expect(new Set(drawn.map((time) => time.snapshotAtMs)).size).toBeGreaterThan(150);
    expect(times(3)).toEqual(drawn);
    expect(times(4)).not.toEqual(drawn);
  });

  it("never serves a clip before publication, though a late event's recording ended long before", () => {
    const schedule = new MediaSchedule(1, 0, delay);
    schedule.published(1, 1_000_000, 1_000_000 - 120_000);
    expect(schedule.readyAt(1).clipAtMs).toBe(1_000_000);
    expect(schedule.readyAt(1).snapshotAtMs).toBeGreaterThan(1_000_000);
  });

  it('seeded records are always there; overrides count from publication, Infinity = never', () => {
    for (const setting of [delay, OFF]) {
      const schedule = new MediaSchedule(1, 10, setting);
      expect(schedule.drawing).toBe(setting === delay);
      expect(schedule.readyAt(10)).toEqual({ snapshotAtMs: 0, clipAtMs: 0 });
      schedule.published(11, 5000, 4000, { snapshotDelayMs: Number.POSITIVE_INFINITY, clipDelayMs: 0 });
      expect(schedule.readyAt(11)).toEqual({ snapshotAtMs: Number.POSITIVE_INFINITY, clipAtMs: 5000 });
      // Only the snapshot overridden: the clip keeps the drawn time, or is there at once when off.
      schedule.published(12, 5000, 4000, { snapshotDelayMs: 250 });
      expect(schedule.readyAt(12).snapshotAtMs).toBe(5250);
      if (setting === OFF) expect(schedule.readyAt(12).clipAtMs).toBe(5000);
      else expect(schedule.readyAt(12).clipAtMs).toBeGreaterThanOrEqual(4000 + 6000);
    }
    // Off, a record published without an override was never reported: there at once.
    expect(new MediaSchedule(1, 10, OFF).readyAt(13)).toEqual({ snapshotAtMs: 0, clipAtMs: 0 });
  });
});

describe('media written after the event', () => {
  it('answers 404 (as for an unknown id) until the file is written, then 200; counted in stats', async () => {
    const sim = await simulator({
      // Long enough for the first requests to come before the files even on a busy machine.
      mediaDelay: { snapshotMs: { min: 800, max: 800 }, clipMs: { min: 1200, max: 1200 }, busyMs: 0 },
    });
    const before = Date.now();
    const event = await emitOne(sim, { latenessMs: 0 });
    const ready = sim.control.mediaReadyAt(event.id);
    expect(ready.snapshotAt).toBeGreaterThanOrEqual(before + 800);
    expect(ready.clipAt).toBeGreaterThanOrEqual(before + 1200);

    const unknown = await get(sim, `${sim.apiUrl}/media/snapshots/99999.png`);
    const early = await get(sim, event.image_url);
    expect(early.status).toBe(404);
    expect(early.body).toBe(unknown.body);
    const earlyClip = await get(sim, event.video_url, { range: 'bytes=0-99' });
    expect(earlyClip.status).toBe(404);
    expect(earlyClip.body).toBe('{"detail":"Clip not found"}');

    const snapshots = await untilServed(sim, event.image_url);
    expect((snapshots.at(-1) as Answer).at).toBeGreaterThanOrEqual(ready.snapshotAt as number);
    expect((snapshots.at(-1) as Answer).headers.get('content-type')).toBe('image/png');
    const clips = await untilServed(sim, event.video_url);
    expect((clips.at(-1) as Answer).at).toBeGreaterThanOrEqual(ready.clipAt as number);
    const part = await get(sim, event.video_url, { range: 'bytes=0-99' });
    expect(part.status).toBe(206);

    const answers = [unknown, early, earlyClip, ...snapshots, ...clips, part];
    const stats = sim.control.stats();
    expect(stats.mediaRequests).toBe(answers.length);
    expect(stats.mediaNotFound).toBe(answers.filter((answer) => answer.status === 404).length);
    expect(stats.mediaNotFound).toBeGreaterThanOrEqual(3);
    expect(stats.mediaBusy).toBe(0);
    sim.control.reset();
    expect(sim.control.stats()).toMatchObject({ mediaRequests: 0, mediaNotFound: 0, mediaBusy: 0 });
  });

  it('an event whose snapshot never appears, next to one whose media are there at once (ideal)', async () => {
    const sim = await simulator({});
    const lost = await emitOne(sim, { snapshotDelayMs: 'never', clipDelayMs: 0 });
    const plain = await emitOne(sim);
    expect(sim.control.mediaReadyAt(lost.id)).toEqual({ snapshotAt: null, clipAt: expect.any(Number) });
    expect(sim.control.mediaReadyAt(plain.id)).toEqual({ snapshotAt: 0, clipAt: 0 });
    expect((await get(sim, plain.image_url)).status).toBe(200);
    expect((await get(sim, lost.video_url)).status).toBe(200);
    for (let n = 0; n < 3; n++) expect((await get(sim, lost.image_url)).status).toBe(404);
    expect(sim.control.stats()).toMatchObject({ mediaRequests: 5, mediaNotFound: 3 });
  });

  it("seeded (past) events' media are always there, even under 'messy'", async () => {
    const sim = await simulator({ realism: 'messy', responseLatencyMs: { min: 0, max: 0 } });
    const past = sim.getEvent(20) as SimulatedEvent;
    expect((await get(sim, past.image_url)).status).toBe(200);
    expect((await get(sim, past.video_url)).status).toBe(200);
    expect(sim.control.mediaReadyAt(20)).toEqual({ snapshotAt: 0, clipAt: 0 });
    expect(sim.control.stats().mediaNotFound).toBe(0);
  });

  it('in the last busyMs before a file is complete it answers 503 with Retry-After', async () => {
    const sim = await simulator({
      mediaDelay: { snapshotMs: { min: 1500, max: 1500 }, clipMs: { min: 0, max: 0 }, busyMs: 700 },
    });
    const event = await emitOne(sim, { latenessMs: 0 });
    const answers = await untilServed(sim, event.image_url);
    const statuses = answers.map((answer) => answer.status).join(',');
    expect(statuses).toMatch(/^(404,)+(503,)+200$/);
    const busy = answers.find((answer) => answer.status === 503) as Answer;
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(busy.body)).toEqual({ detail: 'The file is being written' });
    const ready = sim.control.mediaReadyAt(event.id).snapshotAt as number;
    expect(busy.at).toBeGreaterThanOrEqual(ready - 700);
    expect(sim.control.stats().mediaBusy).toBe(answers.filter((answer) => answer.status === 503).length);
  });

  it("a late event's clip is there when it is published (its recording ended long ago), its snapshot is not", async () => {
    const sim = await simulator({
      latePublication: { share: 1, minMs: 60_000, maxMs: 60_000 },
      mediaDelay: { snapshotMs: { min: 5000, max: 5000 }, clipMs: { min: 6000, max: 25_000 }, busyMs: 0 },
    });
    const event = await emitOne(sim);
    expect(sim.control.stats().lateEventsPublished).toBe(1);
    expect((await get(sim, event.video_url)).status).toBe(200);
    expect((await get(sim, event.image_url)).status).toBe(404);
  });

  it('takes the overrides and mediaReadyAt over HTTP, and rejects bad ones naming the field', async () => {
    const sim = await simulator({});
    const emitted = await control<{ result: { lastId: number } }>(sim, 'emit', {
      count: 1,
      snapshotDelayMs: 'never',
      clipDelayMs: 60_000,
    });
    const id = emitted.body.result.lastId;
    const ready = await control<{ result: { id: number; snapshotAt: null; clipAt: number } }>(
      sim,
      'mediaReadyAt',
      { id },
    );
    expect(ready.body.result).toMatchObject({ id, snapshotAt: null });
    expect(ready.body.result.clipAt).toBeGreaterThan(Date.now() + 50_000);
    const bad = await control(sim, 'emit', { count: 1, snapshotDelayMs: 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ detail: '"snapshotDelayMs" must be a number, got "soon"' });
    await expect(sim.control.emit(1, { clipDelayMs: -1 })).rejects.toThrow(
      "emit: clipDelayMs must be an integer from 0 to 86400000 (ms after publication) or 'never', got -1",
    );
    expect(() => sim.control.mediaReadyAt(9999)).toThrow(
      `mediaReadyAt: id must be a record id from 1 to ${id}, got 9999`,
    );
  });
});
