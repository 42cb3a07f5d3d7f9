import { describe, expect, it } from 'vitest';
import { Rng } from '../random.js';
import type { SimulatedEvent } from '../types.js';
import { WorldState } from '../world/world-state.js';
import { EventLog, type EventLogOptions, type HistoryQuery } from './event-log.js';

function makeLog(historySize: number, more: Partial<EventLogOptions> = {}) {
  const world = new WorldState(9);
  const log = new EventLog({
    ...more,
    seed: 9,
    world,
    context: { seed: 9, mediaBase: 'http://sim/apiserver', location: (id) => world.location(id) },
    historySize,
    historyEndMs: Date.UTC(2024, 0, 1),
    // A short span puts several events in the same second, as real bursts do.
    historySpanMs: 120_000,
  });
  return { world, log };
}

/** The obvious, slow answer: build every record, filter, sort by (timestamp, id), slice. */
function bruteForce(all: SimulatedEvent[], query: HistoryQuery): number[] {
  const second = (event: SimulatedEvent) => Date.parse(event.timestamp);
  const direction = query.order === 'asc' ? 1 : -1;
  return all
    .filter(
      (event) =>
        (query.startMs === undefined || second(event) >= query.startMs) &&
        (query.endMs === undefined || second(event) <= query.endMs) &&
        (query.taskId === undefined || event.task_id === query.taskId) &&
        (query.eventId === undefined || event.event_id === query.eventId) &&
        (query.eventName === undefined || event.event_name === query.eventName) &&
        (query.locationId === undefined || event.location_id === query.locationId) &&
        (query.cameraId === undefined || event.camera_id === query.cameraId) &&
        (query.ids === undefined || query.ids.includes(event.id)),
    )
    .sort((a, b) => direction * (second(a) - second(b) || a.id - b.id))
    .map((event) => event.id)
    .slice(query.offset, query.offset + query.limit);
}

describe('EventLog', () => {
  it('record ids follow the order of recording; a late event keeps its older timestamp', () => {
    const { log } = makeLog(500);
    const appended = [
      log.append(3, Date.UTC(2024, 0, 1, 0, 0, 5)),
      log.append(4, Date.UTC(2024, 0, 1, 0, 0, 2)),
      log.append(5, Date.UTC(2023, 11, 31, 23, 59, 0)),
    ];
    expect(appended.map((a) => a.id)).toEqual([501, 502, 503]);
    expect(appended.map((a) => log.record(a.id)?.timestamp)).toEqual([
      '2024-01-01T00:00:05Z',
      '2024-01-01T00:00:02Z',
      '2023-12-31T23:59:00Z',
    ]);
    expect(log.record(0)).toBeUndefined();
    expect(log.record(504)).toBeUndefined();
    // In time order the last one falls among the seeded events (the seeded span is 2 minutes).
    const asc = log.query({ offset: 0, limit: 1000, order: 'asc' }).map((event) => event.id);
    expect(asc.indexOf(503)).toBeLessThan(asc.indexOf(500));
    expect(asc.slice(-2)).toEqual([502, 501]);
  });

  it('orders ties (same second) by record id, desc exactly reversing asc', () => {
    const { log } = makeLog(0);
    const at = Date.UTC(2024, 0, 1, 0, 0, 10);
    for (const offset of [900, 0, 500, -9000, 0]) log.append(1, at + offset);
    expect(log.query({ offset: 0, limit: 10, order: 'asc' }).map((event) => event.id)).toEqual([
      4, 1, 2, 3, 5,
    ]);
    expect(log.query({ offset: 0, limit: 10, order: 'desc' }).map((event) => event.id)).toEqual([
      5, 3, 2, 1, 4,
    ]);
  });

  it('the same id always rebuilds the same event', () => {
    const { log } = makeLog(100);
    expect(log.record(42)).toEqual(log.record(42));
    expect(makeLog(100).log.record(42)).toEqual(log.record(42));
  });

  it('answers every query exactly like a brute-force scan', () => {
    const { log, world } = makeLog(400);
    // Live events out of time order, some of them inside the seeded span (late publication).
    const order = new Rng(3);
    for (let n = 0; n < 200; n++) {
      const back = order.chance(0.2) ? order.int(0, 150_000) : order.int(0, 3000);
      log.append((world.tasks()[n % 5]?.id as number) ?? 1, Date.UTC(2024, 0, 1, 0, 0, n) - back);
    }
    const all = Array.from({ length: log.size }, (_, i) => log.record(i + 1) as SimulatedEvent);
    const rng = new Rng(5);
    const times = all.map((event) => Date.parse(event.timestamp));
    for (let n = 0; n < 600; n++) {
      const query: HistoryQuery = {
        offset: rng.int(0, 30),
        limit: rng.int(0, 60),
        order: rng.chance(0.5) ? 'asc' : 'desc',
      };
      if (rng.chance(0.4)) query.startMs = rng.pick(times) + rng.int(-1500, 1500);
      if (rng.chance(0.4)) query.endMs = rng.pick(times) + rng.int(-1500, 1500);
      if (rng.chance(0.3)) query.taskId = rng.int(1, 13);
      if (rng.chance(0.2)) query.eventId = rng.pick([2001, 2002, 2003, 2004, 2008, 9999]);
      if (rng.chance(0.2)) query.eventName = rng.pick(['person_in_zone', 'smoke_detected', 'nothing']);
      if (rng.chance(0.2)) query.locationId = rng.int(11, 18);
      if (rng.chance(0.2)) query.cameraId = rng.pick(all).camera_id;
      if (rng.chance(0.2)) query.ids = Array.from({ length: rng.int(1, 30) }, () => rng.int(0, 620));
      expect(
        log.query(query).map((event) => event.id),
        JSON.stringify(query),
      ).toEqual(bruteForce(all, query));
    }
  });

  it('stores live events compactly: a million appends keep working', () => {
    const { log } = makeLog(0);
    const start = Date.UTC(2024, 0, 1);
    for (let n = 0; n < 1_000_000; n++) log.append(1 + (n % 12), start + n);
    expect(log.size).toBe(1_000_000);
    const page = log.query({ offset: 999_998, limit: 10, order: 'asc' });
    expect(page.map((event) => event.id)).toEqual([999_999, 1_000_000]);
    expect(page[1]?.task_id).toBe(1 + (999_999 % 12));
  });

  it('keeps deep pages exact when a quarter million live events arrive out of time order', () => {
    const { log } = makeLog(1000);
    const start = Date.UTC(2024, 0, 1);
    const count = 250_000;
    const seconds: number[] = [];
    for (let n = 0; n < count; n++) {
      // Seven cameras, each 0-4.2 s behind, and every 97th event two minutes late.
      const occurred = start + n * 2 - (n % 7) * 700 - (n % 97 === 0 ? 120_000 : 0);
      seconds.push(log.append(1 + (n % 12), occurred).second);
    }
    const keys = Array.from({ length: log.size }, (_, i) =>
      i < 1000 ? Date.parse(log.record(i + 1)?.timestamp ?? '') / 1000 : (seconds[i - 1000] as number),
    );
    const expected = keys
      .map((_, i) => i + 1)
      .sort((a, b) => (keys[a - 1] as number) - (keys[b - 1] as number) || a - b);
    const rng = new Rng(11);
    for (let n = 0; n < 20; n++) {
      const offset = rng.int(0, log.size - 50);
      const asc = log.query({ offset, limit: 50, order: 'asc' }).map((event) => event.id);
      expect(asc).toEqual(expected.slice(offset, offset + 50));
      const desc = log.query({ offset, limit: 50, order: 'desc' }).map((event) => event.id);
      expect(desc).toEqual(expected.slice(log.size - offset - 50, log.size - offset).reverse());
    }
  });

  it("with ties 'per-request' answers every query like a brute-force scan, up to the order within a second", () => {
    const { log, world } = makeLog(400);
    const order = new Rng(3);
    for (let n = 0; n < 200; n++) {
      const back = order.chance(0.2) ? order.int(0, 150_000) : order.int(0, 3000);
      log.append((world.tasks()[n % 5]?.id as number) ?? 1, Date.UTC(2024, 0, 1, 0, 0, n) - back);
    }
    log.ties = 'per-request';
    const all = Array.from({ length: log.size }, (_, i) => log.record(i + 1) as SimulatedEvent);
    const secondOf = new Map(all.map((event) => [event.id, Date.parse(event.timestamp)]));
    const rng = new Rng(5);
    const times = all.map((event) => Date.parse(event.timestamp));
    let reordered = 0;
    for (let n = 0; n < 300; n++) {
      const query: HistoryQuery = {
        offset: rng.int(0, 30),
        limit: rng.int(0, 60),
        order: rng.chance(0.5) ? 'asc' : 'desc',
      };
      if (rng.chance(0.4)) query.startMs = rng.pick(times) + rng.int(-1500, 1500);
      if (rng.chance(0.4)) query.endMs = rng.pick(times) + rng.int(-1500, 1500);
      if (rng.chance(0.3)) query.taskId = rng.int(1, 13);
      if (rng.chance(0.2)) query.eventName = rng.pick(['person_in_zone', 'smoke_detected', 'nothing']);
      if (rng.chance(0.2)) query.cameraId = rng.pick(all).camera_id;
      if (rng.chance(0.2)) query.ids = Array.from({ length: rng.int(1, 30) }, () => rng.int(0, 620));
      const got = log.query(query).map((event) => event.id);
      const expected = bruteForce(all, query);
      const context = JSON.stringify(query);
      // The same seconds in the same places: only rows of one second may trade places.
      expect(
        got.map((id) => secondOf.get(id)),
        context,
      ).toEqual(expected.map((id) => secondOf.get(id)));
      // Every row is one the query selects, once; a second wholly inside the page is all there.
      const everything = bruteForce(all, { ...query, offset: 0, limit: Number.MAX_SAFE_INTEGER });
      expect(new Set(got).size, context).toBe(got.length);
      for (const id of got) expect(everything, context).toContain(id);
      const inner = new Set(got.map((id) => secondOf.get(id)));
      inner.delete(secondOf.get(got[0] as number));
      inner.delete(secondOf.get(got.at(-1) as number));
      for (const second of inner) {
        const mine = got.filter((id) => secondOf.get(id) === second).sort();
        const theirs = everything.filter((id) => secondOf.get(id) === second).sort();
        expect(mine, context).toEqual(theirs);
      }
      if (got.join() !== expected.join()) reordered++;
    }
    expect(reordered).toBeGreaterThan(25);
  });

  it("with ties 'per-request' two requests order a busy second differently; desc is not the reverse of asc", () => {
    const { log } = makeLog(0);
    const at = Date.UTC(2024, 0, 1, 0, 0, 10);
    for (let n = 0; n < 40; n++) log.append(1 + (n % 3), at + n * 10);
    log.ties = 'per-request';
    const ids = (order: 'asc' | 'desc') => log.query({ offset: 0, limit: 100, order }).map((e) => e.id);
    const [first, second, desc] = [ids('asc'), ids('asc'), ids('desc')];
    expect([...first].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(second).not.toEqual(first);
    expect([...desc].reverse()).not.toEqual(first);
    expect([...desc].reverse()).not.toEqual(second);
    log.ties = 'id';
    expect(ids('asc')).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('shows a live record only lagMs after it was pushed; lowering the lag shows it sooner', () => {
    const { log } = makeLog(10);
    log.lagMs = 3000;
    const everything = () => log.query({ offset: 0, limit: 100, order: 'asc' }).map((e) => e.id);
    const byId = (id: number) => log.query({ ids: [id], offset: 0, limit: 10, order: 'asc' }).length;
    log.append(1, Date.UTC(2024, 0, 1));
    log.pushed(Date.now() - 5000);
    log.append(2, Date.UTC(2024, 0, 1));
    log.pushed(Date.now());
    expect(everything()).toContain(11);
    expect(everything()).not.toContain(12);
    expect(byId(12)).toBe(0);
    expect(log.record(12)?.task_id).toBe(2);
    log.lagMs = 0;
    expect(everything()).toContain(12);
    expect(byId(12)).toBe(1);
    // Raising it again hides nothing already shown.
    log.lagMs = 60_000;
    expect(everything()).toContain(12);
  });

  it("with interleavedIds a second's rows do not have consecutive ids, and every query answers like a brute-force scan", () => {
    const { log, world } = makeLog(400, { interleavedIds: 5 });
    const order = new Rng(3);
    for (let n = 0; n < 300; n++) {
      const back = order.chance(0.2) ? order.int(0, 150_000) : order.int(0, 3000);
      // Ten events a second: a second's rows are recorded one after another.
      log.append((world.tasks()[n % 5]?.id as number) ?? 1, Date.UTC(2024, 0, 1, 0, 0, n / 10) - back);
    }
    const ids = Array.from({ length: log.lastId }, (_, i) => i + 1).filter((id) => log.has(id));
    expect(ids.length).toBe(log.size);
    expect(log.lastId).toBeGreaterThan(log.size + 300);
    const all = ids.map((id) => log.record(id) as SimulatedEvent);
    // Ids taken by other writers are no record, live or not.
    const skipped = Array.from({ length: log.lastId }, (_, i) => i + 1).find((id) => !log.has(id)) as number;
    expect(log.record(skipped)).toBeUndefined();
    expect(log.query({ ids: [skipped], offset: 0, limit: 10, order: 'asc' })).toEqual([]);
    // Within a busy second the ids have gaps: what asking by id between two found ids assumes is gone.
    const live = all.filter((event) => event.id > 400);
    const bySecond = new Map<string, number[]>();
    for (const event of live)
      bySecond.set(event.timestamp, [...(bySecond.get(event.timestamp) ?? []), event.id]);
    const gapped = [...bySecond.values()].filter((sameSecond) => {
      const sorted = [...sameSecond].sort((a, b) => a - b);
      return sorted.some((id, i) => i > 0 && id - (sorted[i - 1] as number) > 1);
    });
    const crowded = [...bySecond.values()].filter((sameSecond) => sameSecond.length > 2);
    expect(gapped.length).toBeGreaterThan(crowded.length / 2);
    const rng = new Rng(5);
    const times = all.map((event) => Date.parse(event.timestamp));
    for (let n = 0; n < 400; n++) {
      const query: HistoryQuery = {
        offset: rng.int(0, 30),
        limit: rng.int(0, 60),
        order: rng.chance(0.5) ? 'asc' : 'desc',
      };
      if (rng.chance(0.4)) query.startMs = rng.pick(times) + rng.int(-1500, 1500);
      if (rng.chance(0.4)) query.endMs = rng.pick(times) + rng.int(-1500, 1500);
      if (rng.chance(0.3)) query.taskId = rng.int(1, 13);
      if (rng.chance(0.2))
        query.ids = Array.from({ length: rng.int(1, 30) }, () => rng.int(0, log.lastId + 5));
      expect(
        log.query(query).map((event) => event.id),
        JSON.stringify(query),
      ).toEqual(bruteForce(all, query));
    }
  });

  it('with lagSpreadMs each record shows after a lag of its own, a later one sometimes before an earlier one', () => {
    const { log } = makeLog(0, { lagMs: 1_000, lagSpreadMs: 4_000 });
    const shown = () => new Set(log.query({ offset: 0, limit: 1_000, order: 'asc' }).map((e) => e.id));
    const pushedAt = Date.now();
    for (let n = 0; n < 200; n++) log.append(1, Date.UTC(2024, 0, 1, 0, 0, n % 7));
    log.pushed(pushedAt - 3_000);
    // Three seconds after the push: past the lag, inside the spread: some show, not all.
    const early = shown();
    expect(early.size).toBeGreaterThan(20);
    expect(early.size).toBeLessThan(180);
    // Not a prefix of the publication order: a later record shows while an earlier one waits.
    const firstMissing = Array.from({ length: 200 }, (_, i) => i + 1).find((id) => !early.has(id)) as number;
    expect([...early].some((id) => id > firstMissing)).toBe(true);
    // The pages stay in time order, ties by record id, whatever showed first.
    const page = log
      .query({ offset: 0, limit: 1_000, order: 'asc' })
      .map((e) => [Date.parse(e.timestamp), e.id]);
    expect(page).toEqual(
      [...page].sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number)),
    );
    // Past the lag and the whole spread every record shows; those shown stay.
    log.lagSpreadMs = 0;
    log.lagMs = 2_000;
    expect(shown().size).toBe(200);
    log.lagMs = 60_000;
    log.lagSpreadMs = 60_000;
    expect(shown().size).toBe(200);
  });
});
