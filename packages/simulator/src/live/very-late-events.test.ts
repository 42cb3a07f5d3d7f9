/**
 * Events published minutes after their timestamp, beyond any lateness a client allows for:
 * delivered to a connected socket like any other, and during an outage (sockets dropped and
 * refused) only recorded, so history is the only place that has them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../simulator.js';
import { call, Listener, realtimeUrl, upgradeAnswer } from '../testing/sim-client.js';

interface Row {
  id: number;
  task_id: number;
  timestamp: string;
}

const FIVE_MINUTES = 5 * 60_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);

const running: Simulator[] = [];
const listeners: Listener[] = [];
afterEach(async () => {
  for (const listener of listeners.splice(0)) listener.close();
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

async function simulator(): Promise<Simulator> {
  // A past of one event per second over the last 10 minutes: the late event lands among them.
  const sim = await startSimulator({ historySize: 600, historySpanMs: 600_000 });
  running.push(sim);
  return sim;
}
async function listen(sim: Simulator): Promise<Listener> {
  const listener = await Listener.open(realtimeUrl(sim, '0'));
  listeners.push(listener);
  return listener;
}

/** The history rows of the two minutes around five minutes ago, in time order newest first. */
async function aroundFiveMinutesAgo(sim: Simulator, now: number): Promise<Row[]> {
  const window = `start_time=${iso(now - FIVE_MINUTES - 60_000)}&end_time=${iso(now - FIVE_MINUTES + 60_000)}`;
  return (await call<Row[]>(sim, `/events/history?${window}&limit=100`)).body;
}

async function untilOpenSockets(sim: Simulator, count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (sim.control.stats().openSockets !== count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} open sockets`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('an event published 5 minutes after its timestamp', () => {
  it('reaches a connected socket in publish order and is in history at its time', async () => {
    const sim = await simulator();
    const socket = await listen(sim);
    const now = Date.now();
    const [late] = await sim.control.emit(1, { taskIds: [1], latenessMs: FIVE_MINUTES });
    const [sentinel] = await sim.control.emit(1, { taskIds: [1], latenessMs: 0 });
    const frames = (await socket.waitFor(2)).map((text) => JSON.parse(text) as Row);
    expect(frames.map((frame) => frame.id)).toEqual([late?.id, sentinel?.id]);
    const age = now / 1000 - Date.parse((frames[0] as Row).timestamp) / 1000;
    expect(age).toBeGreaterThanOrEqual(299);
    expect(age).toBeLessThanOrEqual(302);
    expect(sim.control.stats().lateEventsPublished).toBe(1);

    const rows = await aroundFiveMinutesAgo(sim, now);
    expect(rows.map((row) => row.id)).toContain(late?.id);
    // Among the seeded events of its minute, in time order, though its id is the newest of all.
    const times = rows.map((row) => Date.parse(row.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const at = rows.findIndex((row) => row.id === late?.id);
    expect(rows[at - 1]?.id).toBeLessThanOrEqual(600);
    expect(rows[at + 1]?.id).toBeLessThanOrEqual(600);
  });

  it('during an outage (sockets dropped, upgrades refused) it is recorded, and only history has it', async () => {
    const sim = await simulator();
    const before = await listen(sim);
    sim.control.refuseConnections(60_000);
    sim.control.dropConnections();
    await before.closed;
    await untilOpenSockets(sim, 0);
    expect((await upgradeAnswer(realtimeUrl(sim, '0'))).status).toBe(503);

    const now = Date.now();
    const late = await sim.control.emit(3, { taskIds: [1, 2, 3], latenessMs: FIVE_MINUTES });
    const lateIds = late.map((event) => event.id);
    expect(sim.control.stats().lateEventsPublished).toBe(3);
    const rows = await aroundFiveMinutesAgo(sim, now);
    for (const id of lateIds) expect(rows.map((row) => row.id)).toContain(id);
    for (const id of lateIds) expect(sim.getEvent(id)?.timestamp).toBe(late[lateIds.indexOf(id)]?.timestamp);

    // The outage ends: a new socket gets what is published from now on, never the late events.
    sim.control.refuseConnections(0);
    const after = await listen(sim);
    const [sentinel] = await sim.control.emit(1, { taskIds: [1], latenessMs: 0 });
    const frames = (await after.waitFor(1)).map((text) => JSON.parse(text) as Row);
    expect(frames.map((frame) => frame.id)).toEqual([sentinel?.id]);
    expect(before.messages).toHaveLength(0);
  });
});
