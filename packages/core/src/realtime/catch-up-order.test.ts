import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeploymentForm } from '../context/form-state.js';
import { recorder, recordIdOf, waitFor } from './__tests__/recorder.js';
import { simulatorContext } from './__tests__/simulator-context.js';
import { createSubscription } from './subscription-handle.js';

const ROUNDS = 20;
const PER_ROUND = 500;

/**
 * Order, where the deployment keeps it (no late publication, one camera per task): forced
 * disconnects while a stream runs, and every event once and in order per task, whichever way the
 * server pages. Loss under a messy deployment is test/never-lose-messy.test.ts, through the real
 * client. Half of each round is emitted while the client is cut off, so it can only
 * come from the history catch-up; the rest races the reconnect.
 */
async function disconnectStorm(sim: Simulator, form: DeploymentForm, rounds = ROUNDS) {
  const taskIds = sim.world.tasks.slice(0, 4).map((task) => task.id);
  const rec = recorder();
  const context = simulatorContext(sim, { form });
  const sub = createSubscription(context, taskIds, rec.handlers, {
    heartbeatMs: 2_000,
    backoff: { baseMs: 2, maxMs: 20 },
  });
  await waitFor(() => sub.state === 'open', 'open');
  const emitted: number[] = [];
  const started = Date.now();
  for (let round = 0; round < rounds; round++) {
    for (const event of await sim.control.emit(PER_ROUND / 2, { taskIds })) emitted.push(event.id);
    sim.control.dropConnections();
    for (const event of await sim.control.emit(PER_ROUND / 2, { taskIds })) emitted.push(event.id);
    await waitFor(
      () => sub.stats.reconnects >= (round + 1) * (form === 'basic' ? taskIds.length : 1),
      'reconnect',
    );
  }
  await waitFor(() => sub.stats.delivered >= emitted.length && sub.state === 'open', 'every event', 60_000);
  const elapsed = Date.now() - started;
  // Positive evidence that nothing more trickles in: one sentinel per task, after everything.
  const sentinels = (await sim.control.emit(taskIds.length, { taskIds })).map((event) => event.id);
  await waitFor(
    () => sentinels.every((id) => rec.events.some((event) => recordIdOf(event) === id)),
    'the sentinels',
  );
  await sub.close();

  const ids = rec.events.map(recordIdOf);
  expect(ids.length).toBe(emitted.length + sentinels.length);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort((a, b) => a - b)).toEqual([...emitted, ...sentinels]);
  const lastPerTask = new Map<number, number>();
  let outOfOrder = 0;
  for (const event of rec.events) {
    const id = recordIdOf(event);
    if ((lastPerTask.get(event.taskId) ?? 0) > id) outOfOrder++;
    lastPerTask.set(event.taskId, id);
  }
  expect(outOfOrder).toBe(0);
  expect(rec.sources).toContain('backfill');
  expect(sub.stats.backfilled).toBeGreaterThan(0);
  return { stats: sub.stats, elapsed, history: context.calls.history };
}

describe('catch-up keeps the order of an orderly deployment', () => {
  // A fresh simulator per test: history of one test must not fall in the other's overlap window.
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  it('extended, newest-first paging: every event once, in order per task', async () => {
    sim = await startSimulator({ historySize: 0 });
    const result = await disconnectStorm(sim, 'extended');
    expect(result.stats.reconnects).toBeGreaterThanOrEqual(ROUNDS);
  }, 60_000);

  it('basic, server paging oldest-first: same-second events still keep their order', async () => {
    // The default simulator pages newest-first; the order must be learned, not assumed.
    sim = await startSimulator({ historySize: 0, historyOrder: 'asc' });
    const result = await disconnectStorm(sim, 'basic', 15);
    expect(result.stats.reconnects).toBeGreaterThanOrEqual(15 * 4);
  }, 60_000);
});
