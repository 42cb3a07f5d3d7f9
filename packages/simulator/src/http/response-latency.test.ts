import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, type SimulatorOptions, startSimulator } from '../index.js';
import { call, settle } from '../testing/sim-client.js';
import { ResponseLatencyDraw } from './response-latency.js';

describe('ResponseLatencyDraw', () => {
  const draws = (seed: number, min: number, max: number, count = 200) => {
    const draw = new ResponseLatencyDraw(seed, { min, max });
    return Array.from({ length: count }, () => draw.nextMs());
  };

  it('gives request n the same duration for the same seed, another for another seed', () => {
    expect(draws(7, 20, 250)).toEqual(draws(7, 20, 250));
    expect(draws(8, 20, 250)).not.toEqual(draws(7, 20, 250));
  });

  it('stays in [min, max] and spreads over the range (jitter, not one value)', () => {
    const values = draws(3, 20, 250, 1000);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...values)).toBeLessThanOrEqual(250);
    // 1000 uniform draws over 231 values: both ends of the range are reached within 10 ms.
    expect(Math.min(...values)).toBeLessThan(30);
    expect(Math.max(...values)).toBeGreaterThan(240);
    expect(new Set(values).size).toBeGreaterThan(150);
    expect(draws(3, 40, 40, 5)).toEqual([40, 40, 40, 40, 40]);
    expect(draws(3, 0, 0, 5)).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('responseLatencyMs over real sockets', () => {
  let sim: Simulator | undefined;
  const start = async (options: SimulatorOptions) => {
    sim = await startSimulator({ historySize: 20, ...options });
    return sim;
  };
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });

  /** Status and wall-clock duration of one REST call. */
  const timed = async (run: () => Promise<{ status: number }>) => {
    const started = performance.now();
    const { status } = await run();
    return { status, ms: performance.now() - started };
  };

  it('makes every answer under the prefix (history, tasks, login, media) wait at least min', async () => {
    const s = await start({ responseLatencyMs: { min: 300, max: 400 } });
    // Concurrent, so the test takes one latency, not four; each request draws its own.
    const answers = await Promise.all([
      timed(() => call(s, '/events/history?limit=5')),
      timed(() => call(s, '/tasks')),
      timed(() => call(s, '/users/token', { token: null, body: s.credentials })),
      timed(() => fetch(`${s.apiUrl}/media/snapshots/1.png?auth_token=${s.token}`)),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    // Lower bound only (a timer never fires early; 1 ms for clock rounding): how much later
    // an answer comes depends on the machine's load.
    for (const answer of answers) expect(answer.ms).toBeGreaterThanOrEqual(299);
  });

  it('delays error answers too: a failing service is as slow as a working one', async () => {
    const s = await start({ responseLatencyMs: { min: 300, max: 300 } });
    const unauthorized = await timed(() => call(s, '/tasks', { token: 'wrong' }));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.ms).toBeGreaterThanOrEqual(299);
    s.control.failNext(1, 503);
    const failed = await timed(() => call(s, '/tasks'));
    expect(failed.status).toBe(503);
    expect(failed.ms).toBeGreaterThanOrEqual(299);
  });

  it('is overridden by control.delayResponses while > 0', async () => {
    // A minute-long latency would outlast the test's timeout: answering proves the override.
    const s = await start({ responseLatencyMs: { min: 60_000, max: 60_000 } });
    s.control.delayResponses(200);
    const answer = await timed(() => call(s, '/tasks'));
    expect(answer.status).toBe(200);
    expect(answer.ms).toBeGreaterThanOrEqual(199);
  });

  it('a wait in progress does not keep stop() from finishing; the request is cut', async () => {
    const s = await start({ responseLatencyMs: { min: 60_000, max: 60_000 } });
    const pending = call(s, '/tasks').then(
      () => 'answered',
      () => 'cut',
    );
    while (s.control.stats().requests === 0) await settle(10);
    await s.stop();
    expect(await pending).toBe('cut');
  });
});
