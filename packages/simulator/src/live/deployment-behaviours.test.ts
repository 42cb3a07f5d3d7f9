/**
 * The behaviours of real deployments, observed as a client would: over real sockets and HTTP.
 * "Nothing else arrived" is always proven by a later sentinel event or a counter.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorOptions } from '../options.js';
import { type Simulator, startSimulator } from '../simulator.js';
import { call, Listener, realtimeUrl } from '../testing/sim-client.js';

interface Frame {
  id: number;
  task_id: number;
  timestamp: string | number;
}

const HISTORY_END = '2024-06-01T12:00:00Z';

const running: Simulator[] = [];
const listeners: Listener[] = [];
async function simulator(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator({ historySize: 0, ...options });
  running.push(sim);
  return sim;
}
async function listen(sim: Simulator, selection: string): Promise<Listener> {
  const listener = await Listener.open(realtimeUrl(sim, selection));
  listeners.push(listener);
  return listener;
}
afterEach(async () => {
  for (const listener of listeners.splice(0)) listener.close();
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

const seconds = (frame: { timestamp: string | number }) =>
  typeof frame.timestamp === 'number' ? frame.timestamp : Date.parse(frame.timestamp) / 1000;
const iso = (ms: number) => new Date(ms).toISOString();
/** Sorts like history: by timestamp, ties by record id. */
const timeOrder = <T extends Frame>(rows: T[]) =>
  [...rows].sort((a, b) => seconds(a) - seconds(b) || a.id - b.id).map((row) => row.id);

/** Resolves once the simulator has seen every socket but `count` close (a counter, not a sleep). */
async function untilOpenSockets(sim: Simulator, count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (sim.control.stats().openSockets !== count) {
    if (Date.now() > deadline)
      throw new Error(`expected ${count} open sockets, got ${sim.control.stats().openSockets}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('camera latency', () => {
  it('delivers the all-tasks socket out of timestamp order across cameras, in order per camera', async () => {
    const sim = await simulator({ seed: 4, cameraLatencyMs: { min: 0, max: 5000 } });
    const byLatency = sim.world.tasks
      .map((task) => ({ id: task.id, latency: sim.control.cameraLatencyMs(task.camera_id) }))
      .sort((a, b) => a.latency - b.latency);
    const fast = byLatency[0] as { id: number; latency: number };
    const slow = byLatency.at(-1) as { id: number; latency: number };
    // Drawn from the seed and camera id (the same seed gives the same latencies, another seed
    // others), in range, and spread: the test needs two cameras ≥ 2 s apart.
    const cameras = sim.world.tasks.map((task) => task.camera_id);
    const latencies = (other: Simulator) => cameras.map((camera) => other.control.cameraLatencyMs(camera));
    expect(latencies(await simulator({ seed: 4, cameraLatencyMs: { min: 0, max: 5000 } }))).toEqual(
      latencies(sim),
    );
    expect(latencies(await simulator({ seed: 5, cameraLatencyMs: { min: 0, max: 5000 } }))).not.toEqual(
      latencies(sim),
    );
    for (const { latency } of byLatency) expect(latency).toBeGreaterThanOrEqual(0);
    expect(slow.latency).toBeLessThanOrEqual(5000);
    expect(slow.latency - fast.latency).toBeGreaterThanOrEqual(2000);

    const all = await listen(sim, '0');
    const before = Date.now();
    await sim.control.emit(20, { taskIds: [slow.id, fast.id] });
    const after = Date.now();
    const frames = (await all.waitFor(20)).map((text) => JSON.parse(text) as Frame);

    // Ids grow in arrival (= publish) order, timestamps do not.
    for (let n = 1; n < frames.length; n++)
      expect((frames[n] as Frame).id).toBeGreaterThan((frames[n - 1] as Frame).id);
    let newest = Number.NEGATIVE_INFINITY;
    let backwards = 0;
    for (const frame of frames) {
      if (seconds(frame) < newest) backwards++;
      newest = Math.max(newest, seconds(frame));
    }
    expect(backwards).toBeGreaterThanOrEqual(9);
    expect(sim.control.stats().eventsOutOfOrder).toBe(backwards);
    expect(sim.control.stats().lateEventsPublished).toBe(0);

    for (const { id, latency } of [slow, fast]) {
      const mine = frames.filter((frame) => frame.task_id === id);
      expect(mine).toHaveLength(10);
      for (let n = 1; n < mine.length; n++)
        expect(seconds(mine[n] as Frame)).toBeGreaterThanOrEqual(seconds(mine[n - 1] as Frame));
      for (const frame of mine) {
        expect(seconds(frame)).toBeGreaterThanOrEqual(Math.floor((before - latency) / 1000));
        expect(seconds(frame)).toBeLessThanOrEqual(Math.floor((after - latency) / 1000));
      }
    }
    // History serves them in time order, ties by id.
    const history = await call<Frame[]>(sim, '/events/history?limit=100');
    expect(history.body.map((row) => row.id)).toEqual(timeOrder(frames).reverse());
  });

  it('leaves the choice of tasks exactly as without it (same seed, same sequence)', async () => {
    const plain = await simulator({ seed: 12 });
    const messy = await simulator({ seed: 12, realism: 'messy' });
    const tasksOf = async (sim: Simulator) => (await sim.control.emit(60)).map((event) => event.task_id);
    expect(await tasksOf(messy)).toEqual(await tasksOf(plain));
  });
});

describe('late publication', () => {
  it('publishes the drawn share late by minMs..maxMs, the same events for the same seed', async () => {
    const options: SimulatorOptions = {
      seed: 5,
      latePublication: { share: 0.3, minMs: 20_000, maxMs: 60_000 },
    };
    const sim = await simulator(options);
    const all = await listen(sim, '0');
    const before = Date.now();
    await sim.control.emit(200);
    const after = Date.now();
    const frames = (await all.waitFor(200)).map((text) => JSON.parse(text) as Frame);
    const late = frames.filter((frame) => seconds(frame) < Math.floor(before / 1000) - 1);
    for (const frame of late) {
      expect(seconds(frame)).toBeGreaterThanOrEqual(Math.floor((before - 60_000) / 1000));
      expect(seconds(frame)).toBeLessThanOrEqual(Math.floor((after - 20_000) / 1000));
    }
    for (const frame of frames.filter((f) => !late.includes(f))) {
      expect(seconds(frame)).toBeGreaterThanOrEqual(Math.floor(before / 1000));
      expect(seconds(frame)).toBeLessThanOrEqual(Math.floor(after / 1000));
    }
    expect(late.length).toBeGreaterThan(30);
    expect(late.length).toBeLessThan(90);
    expect(sim.control.stats().lateEventsPublished).toBe(late.length);

    const again = await simulator(options);
    const lateAgain = (await again.control.emit(200)).filter(
      (event) => seconds(event) < Math.floor(before / 1000) - 1,
    );
    expect(lateAgain.map((event) => event.id)).toEqual(late.map((frame) => frame.id));
  });

  it('a late event is in history only from its publish moment, and never reaches a socket closed then', async () => {
    const sim = await simulator({ latePublication: { share: 1, minMs: 30_000, maxMs: 45_000 } });
    const stays = await listen(sim, '0');
    const away = await listen(sim, '0');
    const onTime = await sim.control.emit(3, { taskIds: [2], latenessMs: 0 });
    await stays.waitFor(3);
    await away.waitFor(3);
    away.close();
    await untilOpenSockets(sim, 1);

    const window = `/events/history?task_id=2&start_time=${iso(Date.now() - 120_000)}&limit=100`;
    const before = await call<Frame[]>(sim, window);
    expect(before.body.map((row) => row.id).sort()).toEqual(onTime.map((event) => event.id).sort());

    // Published now by the latePublication draw (share 1): its timestamp lies 30-45 s back.
    const [late] = await sim.control.emit(1, { taskIds: [2] });
    const lateId = late?.id as number;
    expect(lateId).toBeGreaterThan(onTime.at(-1)?.id as number);
    expect(Date.now() / 1000 - seconds(late as Frame)).toBeGreaterThanOrEqual(29);
    expect(sim.control.stats().lateEventsPublished).toBe(1);

    const afterPublish = await call<Frame[]>(sim, window);
    // Newest first: the late event sorts behind the on-time ones despite its larger id.
    expect(afterPublish.body.map((row) => row.id)).toEqual([
      ...onTime.map((event) => event.id).reverse(),
      lateId,
    ]);

    const back = await listen(sim, '0');
    const [sentinel] = await sim.control.emit(1, { taskIds: [2], latenessMs: 0 });
    expect((await back.waitFor(1)).map((text) => (JSON.parse(text) as Frame).id)).toEqual([sentinel?.id]);
    expect((await stays.waitFor(5)).map((text) => (JSON.parse(text) as Frame).id)).toEqual([
      ...onTime.map((event) => event.id),
      lateId,
      sentinel?.id,
    ]);
    expect(away.messages).toHaveLength(3);
  });

  it('ids grow in publish order; both history orders follow time, ties by id, desc reversing asc', async () => {
    const sim = await simulator({});
    const all = await listen(sim, '0');
    const published: Frame[] = [];
    for (const latenessMs of [0, 30_000, 5000, 0, 0, 30_000, 5000, 0]) {
      published.push(...(await sim.control.emit(1, { taskIds: [1], latenessMs })));
    }
    const frames = (await all.waitFor(8)).map((text) => JSON.parse(text) as Frame);
    expect(frames.map((frame) => frame.id)).toEqual(published.map((event) => event.id));
    expect(frames.map((frame) => frame.id)).toEqual(
      [...frames.map((frame) => frame.id)].sort((a, b) => a - b),
    );

    const expected = timeOrder(frames);
    expect(expected).not.toEqual(frames.map((frame) => frame.id));
    const desc = await call<Frame[]>(sim, '/events/history?limit=100');
    expect(desc.body.map((row) => row.id)).toEqual([...expected].reverse());
    const asc = await simulator({ historyOrder: 'asc' });
    for (const latenessMs of [0, 30_000, 5000, 0, 0, 30_000, 5000, 0])
      await asc.control.emit(1, { taskIds: [1], latenessMs });
    const ascBody = (await call<Frame[]>(asc, '/events/history?limit=100')).body;
    expect(ascBody.map((row) => row.id)).toEqual(timeOrder(ascBody));
    // Pages of 3 walk the same order without gaps or overlaps.
    const paged: number[] = [];
    for (let offset = 0; offset < 8; offset += 3)
      paged.push(
        ...(await call<Frame[]>(asc, `/events/history?limit=3&offset=${offset}`)).body.map((row) => row.id),
      );
    expect(paged).toEqual(ascBody.map((row) => row.id));
  });

  it('emit rejects a bad latenessMs naming it', async () => {
    const sim = await simulator({});
    await expect(sim.control.emit(1, { latenessMs: -5 })).rejects.toThrow(
      'emit: latenessMs must be an integer >= 0 (ms between the timestamp and now), got -5',
    );
  });
});

describe('history page cap', () => {
  it.each(['asc', 'desc'] as const)(
    'answers at most the cap whatever the limit, silently, and paging by what came back sees every event once (%s)',
    async (historyOrder) => {
      const sim = await simulator({
        form: 'both',
        historySize: 500,
        historyEnd: HISTORY_END,
        historyOrder,
        historyPageCap: 37,
      });
      const extended = await call<Frame[]>(sim, '/events/history?limit=100', { as: 'extended' });
      const basic = await call<Frame[]>(sim, '/events/history?limit=10000', { as: 'basic' });
      expect([extended.status, basic.status]).toEqual([200, 200]);
      expect(extended.body).toHaveLength(37);
      expect(basic.body).toHaveLength(37);
      expect((await call<Frame[]>(sim, '/events/history?limit=10')).body).toHaveLength(10);
      // Silently: the same headers as an uncapped page.
      const small = await call(sim, '/events/history?limit=5', { as: 'extended' });
      const names = (headers: Headers) =>
        [...headers.keys()].filter((name) => name !== 'content-length').sort();
      expect(names(extended.headers)).toEqual(names(small.headers));

      const ids: number[] = [];
      for (let offset = 0; ; ) {
        const page = (await call<Frame[]>(sim, `/events/history?limit=100&offset=${offset}`)).body;
        if (page.length === 0) break;
        ids.push(...page.map((row) => row.id));
        offset += page.length;
      }
      const all = Array.from({ length: 500 }, (_, i) => i + 1);
      expect(ids).toEqual(historyOrder === 'asc' ? all : all.reverse());
    },
  );
});

describe('numeric timestamps', () => {
  it('sends timestamp as Unix seconds in live frames and history items of both forms', async () => {
    const sim = await simulator({ form: 'both', numericTimestamps: true });
    const extended = await listen(sim, '0');
    const basic = await listen(sim, 'basic:1');
    const emitted = await sim.control.emit(2, { taskIds: [1] });
    const expected = emitted.map((event) => Date.parse(String(event.timestamp)) / 1000);
    for (const listener of [extended, basic]) {
      const frames = (await listener.waitFor(2)).map((text) => JSON.parse(text) as Frame);
      expect(frames.map((frame) => frame.timestamp)).toEqual(expected);
    }
    for (const as of ['extended', 'basic'] as const) {
      const start = iso((expected[0] as number) * 1000);
      const history = await call<Frame[]>(sim, `/events/history?start_time=${start}`, { as });
      expect(history.body.map((row) => row.timestamp)).toEqual([...expected].reverse());
      expect(history.text).toMatch(/"timestamp":\d+,/);
    }
  });
});
