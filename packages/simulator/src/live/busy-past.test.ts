/**
 * The busy-past recipe of the README: a fresh start against a service that has published 200
 * events/s for the last 2 minutes and goes on doing so. History must be dense right up to the
 * first live event, over the tasks live events go to, with ids continuing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../simulator.js';
import { call, Listener, realtimeUrl } from '../testing/sim-client.js';
import type { SimulatedEvent } from '../types.js';
import { isActiveStatus } from '../world/world-state.js';

const RATE = 200;
const SPAN_MS = 120_000;
const SEEDED = (RATE * SPAN_MS) / 1000;

const secondOf = (event: { timestamp: string | number }) =>
  typeof event.timestamp === 'number' ? event.timestamp : Date.parse(event.timestamp) / 1000;

describe('busy past: 200 events/s for the last 2 minutes, continuing live', () => {
  let sim: Simulator;
  let listener: Listener;
  let startedAt: number;
  beforeAll(async () => {
    startedAt = Date.now();
    sim = await startSimulator({
      historySize: SEEDED,
      historySpanMs: SPAN_MS,
      historyTasks: 'active',
      rate: RATE,
    });
    listener = await Listener.open(realtimeUrl(sim, '0'));
  });
  afterAll(async () => {
    listener.close();
    await sim.stop();
  });

  const seeded = () => Array.from({ length: SEEDED }, (_, n) => sim.getEvent(n + 1) as SimulatedEvent);

  it('seeds 200 events in every second of the last 2 minutes, up to the start', () => {
    const events = seeded();
    // Up to the start itself, not the start's whole second: the newest lies within 5 ms of it.
    const endSecond = Math.floor((startedAt - 5) / 1000);
    const perSecond = new Map<number, number>();
    for (const event of events) perSecond.set(secondOf(event), (perSecond.get(secondOf(event)) ?? 0) + 1);
    const seconds = [...perSecond.keys()].sort((a, b) => a - b);
    expect(seconds.at(-1)).toBeGreaterThanOrEqual(endSecond);
    expect(seconds.at(-1)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect((seconds.at(-1) as number) - (seconds[0] as number)).toBeGreaterThanOrEqual(119);
    // Whole seconds (not the partial first and last one) hold the rate, give or take the jitter.
    for (const second of seconds.slice(1, -1)) {
      expect(perSecond.get(second)).toBeGreaterThanOrEqual(RATE - 2);
      expect(perSecond.get(second)).toBeLessThanOrEqual(RATE + 2);
    }
    // Oldest first by id.
    for (let n = 1; n < events.length; n++)
      expect(secondOf(events[n] as SimulatedEvent)).toBeGreaterThanOrEqual(
        secondOf(events[n - 1] as SimulatedEvent),
      );
  });

  it('spreads the past over the active tasks, like the live events', () => {
    const active = sim.world.tasks.filter((task) => isActiveStatus(task.status)).map((task) => task.id);
    expect(active.length).toBeLessThan(sim.world.tasks.length);
    const counts = new Map<number, number>();
    for (const event of seeded()) counts.set(event.task_id, (counts.get(event.task_id) ?? 0) + 1);
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual(active);
    for (const count of counts.values()) expect(count).toBeGreaterThan((SEEDED / active.length) * 0.9);
  });

  it('goes on live from id 24001, the newest past event right before the first live one', async () => {
    const frames = (await listener.waitFor((2 * RATE) / 10)).map(
      (text) => JSON.parse(text) as { id: number; task_id: number; timestamp: string },
    );
    expect(sim.control.stats().historySeeded).toBe(SEEDED);
    expect((frames[0] as { id: number }).id).toBeGreaterThan(SEEDED);
    const firstLive = sim.getEvent(SEEDED + 1) as SimulatedEvent;
    const newestPast = sim.getEvent(SEEDED) as SimulatedEvent;
    expect(secondOf(firstLive) - secondOf(newestPast)).toBeGreaterThanOrEqual(0);
    expect(secondOf(firstLive) - secondOf(newestPast)).toBeLessThanOrEqual(1);
    const active = new Set(sim.world.tasks.filter((task) => isActiveStatus(task.status)).map((t) => t.id));
    for (const frame of frames) expect(active.has(frame.task_id)).toBe(true);

    // Over HTTP, newest first: the live events, then the past without a gap.
    sim.control.setRate(0);
    // A generator emit already under way may still append a few events after the stop: the page
    // that holds the boundary with a live event before it and 20 past ones from it is looked for
    // from where the count says, 50 rows on at a time.
    let offset = sim.control.stats().historySize - SEEDED - 10;
    let ids: number[] = [];
    const holdsBoundary = () => {
      const at = ids.indexOf(SEEDED);
      return at >= 1 && at <= ids.length - 20;
    };
    for (let tries = 0; tries < 20 && !holdsBoundary(); tries++, offset += 50) {
      const page = await call<{ id: number; timestamp: string }[]>(
        sim,
        `/events/history?limit=100&offset=${offset}`,
      );
      ids = page.body.map((row) => row.id);
    }
    const boundary = ids.indexOf(SEEDED);
    expect(boundary).toBeGreaterThan(0);
    expect(ids.slice(boundary, boundary + 20)).toEqual(Array.from({ length: 20 }, (_, n) => SEEDED - n));
    expect(ids.slice(0, boundary).every((id) => id > SEEDED)).toBe(true);
  });

  it('a generator that ticks late (a busy machine) leaves no gap between the past and the live events', async () => {
    const stalled = await startSimulator({ historySize: 2000, historySpanMs: 10_000, rate: RATE });
    try {
      // Block the event loop as a loaded machine does: the generator's first tick comes 2.5 s late.
      const until = Date.now() + 2_500;
      while (Date.now() < until);
      const started = Date.now();
      while (stalled.control.stats().historySize <= 2000 && Date.now() - started < 10_000)
        await new Promise((wake) => setTimeout(wake, 20));
      const firstLive = stalled.getEvent(2001) as SimulatedEvent;
      const newestPast = stalled.getEvent(2000) as SimulatedEvent;
      // What it owed is spread over the time it covers: the first one happened right after the past.
      expect(secondOf(firstLive) - secondOf(newestPast)).toBeLessThanOrEqual(1);
    } finally {
      await stalled.stop();
    }
  });

  it("the default 'all' spreads seeded events over every seeded task, whatever its status", async () => {
    const week = await startSimulator({ historySize: 2000 });
    try {
      const tasks = new Set(Array.from({ length: 2000 }, (_, n) => week.getEvent(n + 1)?.task_id));
      expect(tasks.size).toBe(week.world.tasks.length);
    } finally {
      await week.stop();
    }
  });
});
