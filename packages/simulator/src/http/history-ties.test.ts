import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../simulator.js';
import { call, control } from '../testing/sim-client.js';
import type { ExtendedEventPayload } from '../types.js';

/**
 * historyTies 'per-request' over real HTTP: a database sorting on the one-second wire time alone
 * returns the rows of a busy second in an order of each request's own, so OFFSET pages over it
 * skip some rows and repeat others.
 */

// 600 seeded events over 10 s: 60 in every second, 11:59:50 … 11:59:59.
const HISTORY = { historySize: 600, historySpanMs: 10_000, historyEnd: '2024-06-01T12:00:00Z' };
const BUSY_SECOND = '2024-06-01T11:59:55Z';
const ONE_SECOND = `?start_time=${BUSY_SECOND}&end_time=${BUSY_SECOND}`;

const ids = async (sim: Simulator, query: string) =>
  (await call<ExtendedEventPayload[]>(sim, `/events/history${query}`)).body.map((row) => row.id);

/** What a client paging by offset += limit gets of the busy second. */
async function naiveWalk(sim: Simulator, limit: number): Promise<number[]> {
  const seen: number[] = [];
  for (let offset = 0; offset < 60; offset += limit) {
    seen.push(...(await ids(sim, `${ONE_SECOND}&limit=${limit}&offset=${offset}`)));
  }
  return seen;
}

describe("historyTies 'per-request'", () => {
  let asc: Simulator;
  let desc: Simulator;
  let byId: Simulator;
  beforeAll(async () => {
    [asc, desc, byId] = await Promise.all([
      startSimulator({ ...HISTORY, historyTies: 'per-request', historyOrder: 'asc' }),
      startSimulator({ ...HISTORY, historyTies: 'per-request', historyOrder: 'desc' }),
      startSimulator({ ...HISTORY, historyOrder: 'asc' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([asc.stop(), desc.stop(), byId.stop()]);
  });

  it('answers the same busy second in a different order on each request, the same rows every time', async () => {
    const first = await ids(asc, `${ONE_SECOND}&limit=100`);
    const second = await ids(asc, `${ONE_SECOND}&limit=100`);
    expect(first).toHaveLength(60);
    expect([...second].sort()).toEqual([...first].sort());
    expect(second).not.toEqual(first);
    // The record-id order the default keeps, for contrast.
    const plain = await ids(byId, `${ONE_SECOND}&limit=100`);
    expect(plain).toEqual([...first].sort((a, b) => a - b));
    expect(await ids(byId, `${ONE_SECOND}&limit=100`)).toEqual(plain);
  });

  it('newest-first is not the reverse of oldest-first, and seconds stay in order', async () => {
    const oldest = await ids(asc, `${ONE_SECOND}&limit=100`);
    const newest = await ids(desc, `${ONE_SECOND}&limit=100`);
    expect([...newest].sort()).toEqual([...oldest].sort());
    expect([...newest].reverse()).not.toEqual(oldest);
    // Across seconds the order is kept: the same seconds at the same places as record-id order.
    const seconds = (list: number[]) => list.map((id) => asc.getEvent(id)?.timestamp);
    const page = await ids(asc, '?limit=100&offset=250');
    expect(seconds(page)).toEqual(seconds(await ids(byId, '?limit=100&offset=250')));
    const newestPage = await ids(desc, '?limit=100&offset=250');
    expect(seconds(newestPage)).toEqual(seconds(page).reverse());
  });

  it('an OFFSET walk over a busy second skips some rows and repeats others', async () => {
    const walked = await naiveWalk(asc, 10);
    const all = await ids(byId, `${ONE_SECOND}&limit=100`);
    expect(walked).toHaveLength(60);
    const missing = all.filter((id) => !walked.includes(id));
    expect(missing.length).toBeGreaterThan(0);
    expect(new Set(walked).size).toBeLessThan(walked.length);
    // The same walk is whole under the default: the option is what breaks it.
    expect((await naiveWalk(byId, 10)).sort()).toEqual([...all].sort());
  });

  it('orders ties before the page caps cut the page (historyPageCap, historyPageBytes)', async () => {
    const capped = await startSimulator({
      ...HISTORY,
      historyTies: 'per-request',
      historyPageCap: 7,
      historyPageBytes: 16_384,
    });
    try {
      const pages = [
        await ids(capped, `${ONE_SECOND}&limit=100`),
        await ids(capped, `${ONE_SECOND}&limit=100`),
      ];
      expect(pages[0]?.length).toBe(7);
      // Two requests' first seven rows of one second: drawn from all 60, not the lowest ids.
      expect(pages[1]).not.toEqual(pages[0]);
      const lowest = (await ids(byId, `${ONE_SECOND}&limit=7`)).sort();
      expect([...(pages[0] ?? []), ...(pages[1] ?? [])].some((id) => !lowest.includes(id))).toBe(true);
    } finally {
      await capped.stop();
    }
  });

  it('filters (task_id) and ids= keep their ties in a per-request order too', async () => {
    const taskId = asc.getEvent(300)?.task_id as number;
    const query = `?start_time=2024-06-01T11:59:50Z&end_time=2024-06-01T11:59:59Z&task_id=${taskId}&limit=100`;
    const first = await ids(asc, query);
    const second = await ids(asc, query);
    expect(first.length).toBeGreaterThan(20);
    expect([...second].sort()).toEqual([...first].sort());
    expect(second).not.toEqual(first);
    for (const id of first) expect(asc.getEvent(id)?.task_id).toBe(taskId);
    const chosen = (await ids(byId, `${ONE_SECOND}&limit=30`)).join(',');
    const byIds = [await ids(asc, `?ids=${chosen}`), await ids(asc, `?ids=${chosen}`)];
    expect(byIds[0]).toHaveLength(30);
    expect(byIds[1]).not.toEqual(byIds[0]);
  });

  it('control.setHistoryTies switches it at run time (also over HTTP); reset() restores the option', async () => {
    const sim = await startSimulator(HISTORY);
    try {
      const plain = await ids(sim, `${ONE_SECOND}&limit=100`);
      expect(await ids(sim, `${ONE_SECOND}&limit=100`)).toEqual(plain);
      sim.control.setHistoryTies('per-request');
      expect(await ids(sim, `${ONE_SECOND}&limit=100`)).not.toEqual(plain);
      sim.control.reset();
      expect(await ids(sim, `${ONE_SECOND}&limit=100`)).toEqual(plain);
      expect((await control(sim, 'setHistoryTies', { ties: 'per-request' })).status).toBe(200);
      expect(await ids(sim, `${ONE_SECOND}&limit=100`)).not.toEqual(plain);
      const refused = await control<{ detail: string }>(sim, 'setHistoryTies', { ties: 'random' });
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toBe('setHistoryTies: ties must be one of id, per-request, got "random"');
    } finally {
      await sim.stop();
    }
  });
});
