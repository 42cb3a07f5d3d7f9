import { describe, expect, it } from 'vitest';
import { systemClock } from '../node/system-clock.js';
import { manualClock } from '../realtime/__tests__/manual-clock.js';
import { createThrottledStatus } from './throttled-status.js';

describe('createThrottledStatus', () => {
  it('shows the first request at once and at most once per interval after that', async () => {
    const { clock, advance, timers } = manualClock(1_000);
    let shows = 0;
    const status = createThrottledStatus(() => shows++, { intervalMs: 500, clock });

    status.request();
    expect(shows).toBe(1);
    for (let i = 0; i < 1_000; i++) status.request();
    expect(shows).toBe(1);
    expect(timers()).toBe(1);

    await advance(499);
    expect(shows).toBe(1);
    await advance(1);
    expect(shows).toBe(2);
    expect(timers()).toBe(0);

    // A burst that starts after a quiet interval is shown at once again.
    await advance(500);
    status.request();
    expect(shows).toBe(3);
    status.close();
  });

  it('always follows the last request with a show of the state as it is then', async () => {
    const { clock, advance, timers } = manualClock(1_000);
    let state = 0;
    const shown: number[] = [];
    const status = createThrottledStatus(() => shown.push(state), { intervalMs: 500, clock });

    // A request every 100 ms for 1.2 s, the last one in the middle of an interval.
    for (let step = 1; step <= 12; step++) {
      state = step;
      status.request();
      await advance(100);
    }
    expect(shown).toEqual([1, 5, 10]);
    await advance(500);
    expect(shown).toEqual([1, 5, 10, 12]);
    expect(timers()).toBe(0);
    status.close();
  });

  it('now() shows at once, replaces a pending show and restarts the interval', async () => {
    const { clock, advance, timers } = manualClock(1_000);
    let shows = 0;
    const status = createThrottledStatus(() => shows++, { intervalMs: 500, clock });

    status.request();
    status.request();
    expect(timers()).toBe(1);
    status.now();
    expect(shows).toBe(2);
    expect(timers()).toBe(0);
    await advance(1_000);
    expect(shows).toBe(2);

    status.now();
    status.request();
    expect(shows).toBe(3);
    await advance(500);
    expect(shows).toBe(4);
    status.close();
  });

  it('close() cancels the pending show and ignores every later call', async () => {
    const { clock, advance, timers } = manualClock(1_000);
    let shows = 0;
    const status = createThrottledStatus(() => shows++, { intervalMs: 500, clock });

    status.request();
    status.request();
    expect(timers()).toBe(1);
    status.close();
    expect(timers()).toBe(0);
    status.request();
    status.now();
    await advance(1_000);
    expect(shows).toBe(1);
    expect(timers()).toBe(0);
  });

  it('runs on the Node clock and leaves no timer behind once closed', async () => {
    const timeouts = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    let shows = 0;
    const status = createThrottledStatus(() => shows++, { intervalMs: 50, clock: systemClock });

    status.request();
    status.request();
    expect(shows).toBe(1);
    await expect.poll(() => shows, { interval: 5 }).toBe(2);

    const before = timeouts();
    status.request();
    expect(timeouts()).toBe(before + 1);
    status.close();
    expect(timeouts()).toBe(before);
    expect(shows).toBe(2);
  });
});
