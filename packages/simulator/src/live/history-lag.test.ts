import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorOptions } from '../options.js';
import { type Simulator, startSimulator } from '../simulator.js';
import { call, control, Listener, realtimeUrl } from '../testing/sim-client.js';
import type { ExtendedEventPayload } from '../types.js';

/**
 * historyLagMs: history shows a live event only that long after it was pushed on the websocket,
 * as a search index that refreshes every second or a read replica lags the live feed.
 */

const started: Simulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.stop()));
});

async function simulator(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator({ historySize: 50, ...options });
  started.push(sim);
  return sim;
}

/** Whether history shows record `id`, asked both by `ids=` and by a time window around it. */
async function inHistory(sim: Simulator, id: number): Promise<{ byIds: boolean; byTime: boolean }> {
  const event = sim.getEvent(id) as { timestamp: string };
  const byIds = await call<ExtendedEventPayload[]>(sim, `/events/history?ids=${id}`);
  const window = `start_time=${event.timestamp}&end_time=${event.timestamp}&limit=100`;
  const byTime = await call<ExtendedEventPayload[]>(sim, `/events/history?${window}`);
  return {
    byIds: byIds.body.some((row) => row.id === id),
    byTime: byTime.body.some((row) => row.id === id),
  };
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Emits one on-time event and waits until the socket has it: the push is observed. */
async function pushOne(sim: Simulator, listener: Listener): Promise<number> {
  const before = listener.messages.length;
  const [event] = await sim.control.emit(1, { latenessMs: 0 });
  await listener.waitFor(before + 1);
  const id = (event as { id: number }).id;
  expect(listener.json<{ id: number }>().at(-1)?.id).toBe(id);
  return id;
}

describe('historyLagMs', () => {
  it('keeps a pushed event out of history until the lag has passed, then shows it', async () => {
    const sim = await simulator({ historyLagMs: 2000 });
    const listener = await Listener.open(realtimeUrl(sim, '0'));
    const emittedAt = Date.now();
    const id = await pushOne(sim, listener);
    // Read at once after the push is observed: well inside 2 s.
    expect(await inHistory(sim, id)).toEqual({ byIds: false, byTime: false });
    await until(async () => (await inHistory(sim, id)).byIds, `record ${id} in history`);
    // Pushed after emittedAt and visible no sooner than push + lag.
    expect(Date.now() - emittedAt).toBeGreaterThanOrEqual(2000);
    expect(await inHistory(sim, id)).toEqual({ byIds: true, byTime: true });
    listener.close();
  });

  it('is off by default: history has an event as soon as it is pushed', async () => {
    const sim = await simulator({});
    const listener = await Listener.open(realtimeUrl(sim, '0'));
    const id = await pushOne(sim, listener);
    expect(await inHistory(sim, id)).toEqual({ byIds: true, byTime: true });
    listener.close();
  });

  it('applies to the rate generator and to late publication too', async () => {
    const sim = await simulator({
      historyLagMs: 60_000,
      rate: 200,
      latePublication: { share: 0.5, minMs: 5_000, maxMs: 10_000 },
    });
    await until(async () => sim.control.stats().lateEventsPublished > 5, 'late events published');
    sim.control.setRate(0);
    const { historySeeded, historySize } = sim.control.stats();
    const all = await call<ExtendedEventPayload[]>(sim, '/events/history?limit=100');
    expect(historySize).toBeGreaterThan(historySeeded);
    // Only the seeded past: none of the live ones (late or not) is visible within the minute.
    expect(all.body.every((row) => row.id <= historySeeded)).toBe(true);
    sim.control.setHistoryLag(0);
    const now = await call<ExtendedEventPayload[]>(sim, '/events/history?limit=100');
    expect(now.body.some((row) => row.id > historySeeded)).toBe(true);
  });

  it('control.setHistoryLag changes it at run time: a waiting event shows once it is lowered', async () => {
    const sim = await simulator({ historyLagMs: 60_000 });
    const listener = await Listener.open(realtimeUrl(sim, '0'));
    const id = await pushOne(sim, listener);
    expect((await inHistory(sim, id)).byIds).toBe(false);
    expect((await control(sim, 'setHistoryLag', { ms: 0 })).status).toBe(200);
    expect(await inHistory(sim, id)).toEqual({ byIds: true, byTime: true });
    sim.control.setHistoryLag(60_000);
    const next = await pushOne(sim, listener);
    expect((await inHistory(sim, next)).byIds).toBe(false);
    // Raising the lag hides nothing already shown.
    expect((await inHistory(sim, id)).byIds).toBe(true);
    sim.control.reset();
    expect((await inHistory(sim, next)).byIds).toBe(false);
    expect(() => sim.control.setHistoryLag(-1)).toThrow(
      'setHistoryLag: ms must be an integer from 0 to 86400000 (milliseconds), got -1',
    );
    listener.close();
  });

  it("is part of 'messy' (1 s), with per-request ties; seeded history is there from the start", async () => {
    const sim = await simulator({ realism: 'messy', responseLatencyMs: { min: 0, max: 0 } });
    const seeded = await call<{ id: number }[]>(sim, '/events/history?limit=5');
    expect(seeded.body.length).toBeGreaterThan(0);
    const listener = await Listener.open(realtimeUrl(sim, '0'));
    const emittedAt = Date.now();
    const [event] = await sim.control.emit(1, { latenessMs: 0 });
    await listener.waitFor(1);
    const id = (event as { id: number }).id;
    expect((await inHistory(sim, id)).byIds).toBe(false);
    await until(async () => (await inHistory(sim, id)).byIds, `record ${id} in history`);
    expect(Date.now() - emittedAt).toBeGreaterThanOrEqual(1000);
    listener.close();
  });
});
