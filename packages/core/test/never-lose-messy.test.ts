import { describe, expect, it } from 'vitest';
import { recordIdOf } from '../src/realtime/__tests__/recorder.js';
import { simulator } from './helpers.js';
import { clientFor, LATENESS_MS, messy, pastTheStart, until } from './messy-deployment.js';

/**
 * The storm as it was before ties came in a new order on every request: 50,000 events, 500 a round
 * on 5 tasks (busy seconds of thousands of ties), 100 forced disconnects, on the messy deployment (messy-deployment.ts). This file and
 * never-lose-restarts are a task of their own in `npm test` (`test:storms`, scripts/test-lanes.mjs),
 * run side by side.
 */
const STORM_ROUNDS = 100;
const STORM_HALF_ROUND = 250;

describe('never lose, never duplicate, on a messy deployment', () => {
  it.each(['extended', 'basic'] as const)(
    `%s: ${STORM_ROUNDS} forced disconnects during ${(STORM_HALF_ROUND * 2 * STORM_ROUNDS).toLocaleString('en')} events on 5 tasks, out of order, 5% late, ties in any order, history 1–1.5 s behind`,
    async (form) => {
      const sim = await simulator(messy(form));
      const c = clientFor(sim, form);
      const taskIds = sim.world.tasks.slice(0, 5).map((task) => task.id);
      expect(taskIds).toHaveLength(5);
      const received: number[] = [];
      const errors: Error[] = [];
      const startedMs = Date.now();
      const sub = c.events.subscribe(
        taskIds,
        {
          onEvent: (event) => void received.push(recordIdOf(event)),
          onError: (error) => void errors.push(error),
        },
        { allowedLatenessMs: LATENESS_MS, heartbeatMs: 2_000, backoff: { baseMs: 2, maxMs: 20 } },
      );
      await until(() => sub.state === 'open', 'open');
      await pastTheStart(startedMs);
      const emitted: number[] = [];
      const rounds = STORM_ROUNDS;
      const sockets = form === 'basic' ? taskIds.length : 1;
      // 500 events a round on 5 tasks, as fast as the simulator emits: busy seconds of thousands
      // of ties, in a new order on every request, that each catch-up must read whole.
      for (let round = 0; round < rounds; round++) {
        for (const event of await sim.control.emit(STORM_HALF_ROUND, { taskIds })) emitted.push(event.id);
        sim.control.dropConnections();
        for (const event of await sim.control.emit(STORM_HALF_ROUND, { taskIds })) emitted.push(event.id);
        await until(() => sub.stats.reconnects >= (round + 1) * sockets, `reconnect ${round + 1}`);
      }
      // Positive evidence that the stream is through: an on-time sentinel after everything, one
      // per task, so every socket of the basic form has carried its own.
      const sentinels = (await sim.control.emit(taskIds.length, { taskIds, latenessMs: 0 })).map((e) => e.id);
      await until(
        () => sentinels.every((id) => received.includes(id)),
        'the sentinels',
        120_000,
        () => received.length,
      );
      // What history showed only after the last catch-up comes with the read-back historyLagMs
      // after the socket opened, which reads the storm's busy seconds whole again: minutes on a
      // loaded runner (one CI run was still reading after 60 s). The bound, without progress,
      // only gives a slow runner time: a miss is reported by the lost ids below, not by the wait.
      await until(
        () => received.length >= emitted.length + sentinels.length,
        'every event',
        180_000,
        () => received.length,
      ).catch(() => undefined);
      const stats = sim.control.stats();
      await sub.close();

      expect(emitted.length).toBe(STORM_HALF_ROUND * 2 * STORM_ROUNDS);
      // 5 % late: 2,500 of 50,000.
      expect(stats.lateEventsPublished).toBeGreaterThan(STORM_HALF_ROUND * 2 * STORM_ROUNDS * 0.04);
      expect(stats.eventsOutOfOrder).toBeGreaterThan(0);
      const got = new Set(received);
      const lost = emitted.filter((id) => !got.has(id));
      expect(lost).toEqual([]);
      expect(received.length).toBe(new Set(received).size);
      expect(received.length).toBe(emitted.length + sentinels.length);
      expect(sub.stats.backfilled).toBeGreaterThan(0);
      expect(sub.stats.malformed).toBe(0);
      expect(errors.filter((error) => (error as { code?: string }).code !== 'CONNECTION_LOST')).toEqual([]);
    },
    // CI's own limit: the waits inside end on evidence or after their time without progress (a
    // storm beside `npm run bench` takes three times as long as alone, and is still correct).
    1_200_000,
  );
});
