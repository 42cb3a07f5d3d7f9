import { type SimulatorOptions, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, eventsNode, serverNode, sink, tab } from './harness/flows.js';
import { NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

/**
 * Core's never-lose storm (packages/core/test/never-lose-messy.test.ts), through the events node
 * in a real Node-RED: what a flow receives, not what core hands over. The deployment is messy the
 * way real ones are: each camera has its own analysis latency (out-of-order arrival on a socket),
 * 5% of events are published late (only into history while the node is cut off), history pages
 * are capped below what is asked for, and timestamps come as numbers.
 */
// Every catch-up reads back the allowed lateness; 3 s keeps 50 catch-ups of a fast stream cheap.
// Camera latency plus late publication stay within it: the guarantee's stated limit.
const LATENESS_SECONDS = 3;
const messy = (form: 'extended' | 'basic'): SimulatorOptions => ({
  form,
  historySize: 0,
  cameraLatencyMs: { min: 0, max: 1_000 },
  latePublication: { share: 0.05, minMs: 500, maxMs: LATENESS_SECONDS * 1_000 - 1_000 },
  historyPageCap: 37,
  numericTimestamps: true,
  // Same-second rows in a new order on every request; history a second behind the live feed
  // (each row up to half a second more).
  historyTies: 'per-request',
  historyLagMs: 1_000,
  historyLagSpreadMs: 500,
  // Record ids with other writers' ids between them (other cameras writing at once), as in core's
  // storm: a busy second's missing rows cannot be asked for as a run of ids.
  interleavedIds: 3,
});

/**
 * The storm as it was before ties came in a new order on every request: 50,000 events, 1,000 a
 * round on 5 tasks (busy seconds of thousands of ties), 50 forced disconnects.
 */
const STORM_ROUNDS = 50;
const STORM_HALF_ROUND = 500;

/**
 * A fresh start covers the events that happen after it: one that happened before it (camera
 * latency, late publication) is delivered only when it arrives live. The storm emits once the
 * node has run longer than events can be late, so every event it counts is covered. A wait on
 * the clock, not a negative check: what follows is proven by sentinels and counts.
 */
async function pastTheStart(startedMs: number): Promise<void> {
  const wait = startedMs + LATENESS_SECONDS * 1_000 + 1_000 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** The record id: the event's `id` (extended form), or the one in its image URL (basic form). */
function recordIdOf(payload: { id?: number; imageUrl?: string }): number {
  if (payload.id !== undefined) return payload.id;
  const match = /\/snapshots\/(\d+)\.png/.exec(payload.imageUrl ?? '');
  if (!match) throw new Error(`no record id in ${payload.imageUrl}`);
  return Number(match[1]);
}

describe(`events node never loses nor duplicates on a messy deployment (${nodeRedPackage})`, () => {
  let red: NodeRedHarness;

  beforeAll(async () => {
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
  });

  it.each(['extended', 'basic'] as const)(
    `%s: ${STORM_ROUNDS} forced disconnects during ${(STORM_HALF_ROUND * 2 * STORM_ROUNDS).toLocaleString('en')} events on 5 tasks, out of order, 5% late, ties in any order, history 1–1.5 s behind`,
    async (form) => {
      const sim = await startSimulator(messy(form));
      try {
        const taskIds = sim.world.tasks.slice(0, 5).map((task) => task.id);
        expect(taskIds).toHaveLength(5);
        // The basic form has one socket per task, the extended form one for all.
        const sockets = form === 'basic' ? taskIds.length : 1;
        red.clear();
        const problemsBefore = red.problems.length;
        const startedMs = Date.now();
        await red.deploy([
          tab(),
          serverNode(sim, form === 'basic' ? { serviceId: '', form: 'basic' } : { form: 'extended' }),
          sink('out'),
          sink('errors'),
          catchNode('catch-node', 'errors'),
          eventsNode('events', ['out'], {
            taskMode: 'ids',
            taskIds: taskIds.join(','),
            allowedLateness: LATENESS_SECONDS,
          }),
        ]);
        await waitUntil(() => sim.control.stats().openSockets === sockets, 10_000, 'connected');
        await pastTheStart(startedMs);

        // Read the sink as it fills (thousands of messages: never rescan it on every poll).
        const counts = new Map<number, number>();
        let read = 0;
        const collect = () => {
          const messages = red.messages('out');
          for (; read < messages.length; read++) {
            const id = recordIdOf(messages[read]?.payload as { id?: number; imageUrl?: string });
            counts.set(id, (counts.get(id) ?? 0) + 1);
          }
        };

        // What a wait counts as progress: the node asking the service for anything, or sending
        // anything. On a loaded 2-core runner a reconnect waited behind a long catch-up (history
        // walks) for more than 30 s (CI of 24ffc0d), and the basic form's five sockets catching up
        // 50 drops took more than 120 s to the sentinels (CI of 5eb15ea), both still working.
        const progress = () => sim.control.stats().requests + red.messages('out').length;

        const emitted: number[] = [];
        // Each round's busy seconds are runs of ties in a new order on every request, read whole by
        // every catch-up: the time is in those reads and in the reconnects.
        const rounds = STORM_ROUNDS;
        const connectedBefore = sim.control.stats().connectionsTotal;
        for (let round = 0; round < rounds; round++) {
          for (const event of await sim.control.emit(STORM_HALF_ROUND, { taskIds })) emitted.push(event.id);
          sim.control.dropConnections();
          for (const event of await sim.control.emit(STORM_HALF_ROUND, { taskIds })) emitted.push(event.id);
          // Reconnected: the server accepted every socket again (the only client is this node).
          await waitUntil(
            () => {
              const stats = sim.control.stats();
              return (
                stats.connectionsTotal >= connectedBefore + (round + 1) * sockets &&
                stats.openSockets === sockets
              );
            },
            30_000,
            `reconnect ${round + 1}`,
            progress,
          );
          collect();
        }
        // Positive evidence that the stream is through: an on-time sentinel after everything, one
        // per task, so every socket of the basic form has carried its own.
        const sentinels = (await sim.control.emit(taskIds.length, { taskIds, latenessMs: 0 })).map(
          (event) => event.id,
        );
        await waitUntil(
          () => {
            collect();
            return sentinels.every((id) => counts.has(id));
          },
          120_000,
          'the sentinels',
          progress,
        );
        // The sentinels come after the last catch-up; what history showed only after it comes with
        // the read-back historyLagMs after the socket opened, which reads the storm's busy seconds
        // whole again (walks of pages of 37 rows in a new order each time): minutes on a loaded
        // runner (one CI run was still reading after 60 s). The bound only gives a slow runner
        // time: a miss is reported by the ids below, not by the wait.
        await waitUntil(
          () => {
            collect();
            return counts.size >= emitted.length + sentinels.length;
          },
          180_000,
          'every event',
        ).catch(() => undefined);
        collect();
        const stats = sim.control.stats();

        expect(emitted.length).toBe(STORM_HALF_ROUND * 2 * STORM_ROUNDS);
        // 5 % late: 2,500 of 50,000.
        expect(stats.lateEventsPublished).toBeGreaterThan(STORM_HALF_ROUND * 2 * STORM_ROUNDS * 0.04);
        expect(stats.eventsOutOfOrder).toBeGreaterThan(0);
        // A dropped socket may be reported; nothing else may be. Checked first: a loss comes with
        // what core said about it (a second it could not read whole, a catch-up that failed).
        const errors = red
          .messages('errors')
          .filter((msg) => (msg.payload as { code?: string } | undefined)?.code !== 'CONNECTION_LOST');
        expect(errors.map((msg) => (msg.error as { message?: string } | undefined)?.message)).toEqual([]);
        // Nor did core warn (its log lines are written under the server config node), e.g. of a
        // second of history it could not read whole.
        expect(
          red.problems
            .slice(problemsBefore)
            .filter((problem) => problem.type === 'observation-server')
            .map((problem) => problem.msg),
        ).toEqual([]);
        const lost = emitted.filter((id) => !counts.has(id));
        // Each named with where it was emitted: its round, and whether before or after that round's drop.
        expect(
          lost.map((id) => {
            const record = sim.getEvent(id);
            const index = emitted.indexOf(id);
            const round = Math.floor(index / (STORM_HALF_ROUND * 2));
            const half = index % (STORM_HALF_ROUND * 2) < STORM_HALF_ROUND ? 'before' : 'after';
            return { id, task: record?.task_id, timestamp: record?.timestamp, round, drop: half };
          }),
        ).toEqual([]);
        const twice = [...counts].filter(([, count]) => count > 1).map(([id]) => id);
        expect(twice).toEqual([]);
        expect(read).toBe(emitted.length + sentinels.length);
      } finally {
        await red.deploy([]);
        await sim.stop();
      }
    },
    // CI's own limit: each wait inside fails after its time without progress, so a node that
    // stops is still red within minutes. A fixed bound was not: beside `npm run bench` the basic
    // form's storm ran out 420 s while it was still delivering (alone it takes about 80 s).
    1_200_000,
  );
});
