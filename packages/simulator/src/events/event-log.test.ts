import { describe, expect, it } from 'vitest';
import { Rng } from '../random.js';
import type { SimulatedEvent } from '../types.js';
import { WorldState } from '../world/world-state.js';
import { EventLog, type HistoryQuery } from './event-log.js';

function makeLog(historySize: number) {
  const world = new WorldState(9);
  const log = new EventLog({
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

/** The obvious, slow answer: build every record, filter, sort, slice. */
function bruteForce(all: SimulatedEvent[], query: HistoryQuery): number[] {
  const second = (event: SimulatedEvent) => Date.parse(event.timestamp);
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
    .map((event) => event.id)
    .sort((a, b) => (query.order === 'asc' ? a - b : b - a))
    .slice(query.offset, query.offset + query.limit);
}

describe('EventLog', () => {
  it('record ids are positions + 1, times never decrease, live events follow the seeded ones', () => {
    const { log } = makeLog(500);
    const appended = [log.append(3, Date.UTC(2024, 0, 1, 0, 0, 5)), log.append(4, Date.UTC(2023, 0, 1))];
    expect(appended.map((a) => a.id)).toEqual([501, 502]);
    // A clock going backwards does not break the order.
    expect(appended[1]?.second).toBe(appended[0]?.second);
    let previous = '';
    for (let id = 1; id <= log.size; id++) {
      const event = log.record(id);
      expect(event?.id).toBe(id);
      expect((event?.timestamp ?? '') >= previous).toBe(true);
      previous = event?.timestamp ?? '';
    }
    expect(log.record(0)).toBeUndefined();
    expect(log.record(503)).toBeUndefined();
  });

  it('the same id always rebuilds the same event', () => {
    const { log } = makeLog(100);
    expect(log.record(42)).toEqual(log.record(42));
    expect(makeLog(100).log.record(42)).toEqual(log.record(42));
  });

  it('answers every query exactly like a brute-force scan', () => {
    const { log, world } = makeLog(400);
    for (let n = 0; n < 40; n++)
      log.append((world.tasks()[n % 5]?.id as number) ?? 1, Date.UTC(2024, 0, 1, 0, 0, n));
    const all = Array.from({ length: log.size }, (_, i) => log.record(i + 1) as SimulatedEvent);
    const rng = new Rng(5);
    const times = all.map((event) => Date.parse(event.timestamp));
    for (let n = 0; n < 300; n++) {
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
      if (rng.chance(0.2)) query.ids = Array.from({ length: rng.int(1, 30) }, () => rng.int(0, 460));
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
});
