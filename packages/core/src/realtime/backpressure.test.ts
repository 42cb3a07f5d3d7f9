import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recorder, recordIdOf, waitFor } from './__tests__/recorder.js';
import { simulatorContext } from './__tests__/simulator-context.js';
import { createSubscription } from './subscription-handle.js';

const RATE = 1_000; // events/s from the simulator
const HANDLER_MS = 10; // 10x slower than the stream
const HIGH_WATER_MARK = 100;

/**
 * A consumer ten times slower than the stream for a while, then fast again so the test can check
 * what got through. The bound is asserted on the queue itself (peak length, drops), not on time.
 */
async function slowConsumer(sim: Simulator, overflow: 'pause' | 'drop-oldest') {
  let slow = true;
  const rec = recorder(async () => {
    if (slow) await new Promise((resolve) => setTimeout(resolve, HANDLER_MS));
  });
  const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, {
    highWaterMark: HIGH_WATER_MARK,
    overflow,
    heartbeatMs: 1_000,
    backoff: { baseMs: 5, maxMs: 50 },
  });
  await waitFor(() => sub.state === 'open', 'open');
  sim.control.setRate(RATE);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  sim.control.setRate(0);
  const emitted = sim.control.stats().eventsEmitted;
  const peakWhileSlow = sub.stats.peakQueued;
  slow = false;
  await waitFor(() => sub.stats.delivered + sub.stats.dropped === emitted, 'the rest', 20_000);
  const stats = sub.stats;
  await sub.close();
  return { rec, stats, emitted, peakWhileSlow };
}

describe('backpressure with a consumer 10x slower than the stream', () => {
  let sim: Simulator;
  beforeEach(async () => {
    sim = await startSimulator({ historySize: 0 });
  });
  afterEach(async () => {
    await sim.stop();
  });

  it("'pause' stops reading the socket: the queue stays near the mark and nothing is lost", async () => {
    const { rec, stats, emitted, peakWhileSlow } = await slowConsumer(sim, 'pause');
    expect(emitted).toBeGreaterThan(500);
    expect(stats.dropped).toBe(0);
    // The socket stops at the mark; frames ws had already read still come in (a TCP read's worth).
    expect(peakWhileSlow).toBeLessThanOrEqual(HIGH_WATER_MARK * 3);
    expect(stats.delivered).toBe(emitted);
    const ids = rec.events.map(recordIdOf);
    expect(new Set(ids).size).toBe(emitted);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("'drop-oldest' never holds more than the mark and counts what it dropped", async () => {
    const { rec, stats, emitted, peakWhileSlow } = await slowConsumer(sim, 'drop-oldest');
    expect(peakWhileSlow).toBeLessThanOrEqual(HIGH_WATER_MARK);
    expect(stats.dropped).toBeGreaterThan(emitted / 2);
    expect(stats.delivered + stats.dropped).toBe(emitted);
    // What survives is the newest, in order.
    const ids = rec.events.map(recordIdOf);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(stats.peakQueued).toBeLessThanOrEqual(HIGH_WATER_MARK);
  });
});
