import { describe, expect, it } from 'vitest';
import type { ObservationEvent, Subscription } from '../src/index.js';
import { systemClock } from '../src/index.js';
import type { Clock } from '../src/ports.js';
import { memoryStore } from '../src/realtime/__tests__/memory-store.js';
import { client, optionsFor, simulator, waiter } from './helpers.js';

const until = waiter(30_000);

/**
 * A host that finishes events out of order (a slow request for one, quick ones for the rest) and
 * stops gracefully: what it finished before the last save is never delivered again, what it had
 * not finished always is.
 */
describe('a graceful close', () => {
  /** Five events out at once: the first held until `release`, the others acknowledged at once. */
  async function outOfOrder(clock?: Clock) {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const c = client(optionsFor(sim, { form: 'extended', ...(clock && { clock }) }));
    const store = memoryStore();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first: number[] = [];
    const sub = c.events.subscribe(
      'all',
      {
        onEvent: (event: ObservationEvent) => {
          first.push(event.id as number);
          return first.length === 1 ? held : Promise.resolve();
        },
      },
      { position: store, maxInFlight: 10, positionSaveMs: 0 },
    );
    await until(() => sub.state === 'open', 'open');
    const ids = (await sim.control.emit(5, { latenessMs: 0 })).map((event) => event.id);
    await until(() => first.length === 5, 'the five events handed over');
    return { sim, c, store, sub, ids, release };
  }

  /** A new subscription from the stored position: what it delivers up to a sentinel. */
  async function restart(ctx: Awaited<ReturnType<typeof outOfOrder>>): Promise<number[]> {
    const again: number[] = [];
    const sub: Subscription = ctx.c.events.subscribe(
      'all',
      { onEvent: (event: ObservationEvent) => void again.push(event.id as number) },
      { position: ctx.store },
    );
    await until(() => sub.state === 'open', 'reopened');
    const [sentinel] = await ctx.sim.control.emit(1, { latenessMs: 0 });
    await until(() => again.includes(sentinel?.id as number), 'the sentinel');
    await sub.close();
    await ctx.sim.stop();
    return again.filter((id) => id !== sentinel?.id);
  }

  it('the last save counts the events finished while an earlier one is still out: only that one comes again', async () => {
    const ctx = await outOfOrder();
    // Four finished after the first, which is still out: none of them moved the position.
    await ctx.sub.close();
    expect(await restart(ctx)).toEqual([ctx.ids[0]]);
  }, 60_000);

  it('with drainMs, what finishes during the close counts, and nothing new is handed over meanwhile', async () => {
    const ctx = await outOfOrder();
    const handedBefore = ctx.sub.stats.delivered;
    const closing = ctx.sub.close({ drainMs: 5_000 });
    // Published during the close: not handed over (the socket is stopped), delivered after the restart.
    const during = (await ctx.sim.control.emit(2, { latenessMs: 0 })).map((event) => event.id);
    ctx.release();
    await closing;
    expect(ctx.sub.stats.delivered).toBe(handedBefore + 5);
    expect(await restart(ctx)).toEqual(during);
  }, 60_000);

  it('with drainMs, the close ends on the acknowledgement itself: one timer for the quiet, no polling', async () => {
    // The real clock, with the length of every wait written down.
    const waits: number[] = [];
    const clock: Clock = {
      now: () => systemClock.now(),
      sleep(ms, signal) {
        waits.push(ms);
        return systemClock.sleep(ms, signal);
      },
    };
    const ctx = await outOfOrder(clock);
    const before = waits.length;
    const closing = ctx.sub.close({ drainMs: 60_000 });
    setTimeout(ctx.release, 300);
    await closing;
    // One timer for a quarter of drainMs, cut short by the acknowledgement; a close that polled
    // the queue slept 20 ms at a time while the event was out, and never that long. (Other parts
    // may wait meanwhile too, a read-back for the history's lag: their waits are not counted.)
    const during = waits.slice(before);
    expect(during.filter((ms) => ms === 15_000)).toHaveLength(1);
    expect(ctx.sub.stats.delivered).toBe(5);
    expect(await restart(ctx)).toEqual([]);
  }, 60_000);

  it('with drainMs, an event that never finishes does not hold the close: it comes again', async () => {
    const ctx = await outOfOrder();
    await ctx.sub.close({ drainMs: 2_000 });
    expect(ctx.sub.state).toBe('closed');
    expect(await restart(ctx)).toEqual([ctx.ids[0]]);
  }, 60_000);
});
