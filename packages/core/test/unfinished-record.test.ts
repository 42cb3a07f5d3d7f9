import { describe, expect, it } from 'vitest';
import type { EventBatch, GivenUp, StoredPosition, Subscription } from '../src/index.js';
import { memoryStore } from '../src/realtime/__tests__/memory-store.js';
import { client, optionsFor, simulator, waiter } from './helpers.js';

const until = waiter(30_000);

/** What a handler saw of one batch: its key, its attempt, and the record as the store held it then. */
interface Seen {
  id: number;
  key: string;
  attempt: number;
  recorded: StoredPosition['unfinished'];
}

/**
 * `position.unfinished`: what a host may have done without acknowledging (n8n writes a trigger's
 * static data only when it emits) is in the stored position before the handler starts, and a
 * restart tells it apart by its attempt.
 */
describe('the record of what is unfinished', () => {
  /**
   * A run that acknowledges every batch but those of `hold` (left out, as a killed host leaves
   * them), then ends without a last save: what the store holds is what it held at the last hand-over.
   */
  async function run(
    mode: 'record' | 'rerun',
    ctx: { sim: Awaited<ReturnType<typeof simulator>>; store: ReturnType<typeof memoryStore> },
    publish: number,
    hold: (seen: Seen) => boolean,
  ): Promise<{ seen: Seen[]; ids: number[] }> {
    const c = client(optionsFor(ctx.sim, { form: 'extended' }));
    const seen: Seen[] = [];
    const sub: Subscription = c.events.subscribe(
      'all',
      {
        onBatch: (batch: EventBatch) => {
          const stored = ctx.store.value as StoredPosition;
          const one = { id: batch.events[0]?.id as number, key: batch.key, attempt: batch.attempt };
          seen.push({ ...one, recorded: stored?.unfinished });
          return hold({ ...one, recorded: stored?.unfinished }) ? new Promise<void>(() => {}) : undefined;
        },
      },
      {
        position: { store: ctx.store, resume: true, unfinished: mode },
        batch: { size: 1, waitMs: 1 },
        maxInFlight: 10,
        // Only the hand-overs write in this run: a crash keeps what they wrote.
        positionSaveMs: 3_600_000,
      },
    );
    await until(() => sub.state === 'open', 'open');
    const ids = (await ctx.sim.control.emit(publish, { latenessMs: 0 })).map((event) => event.id as number);
    await until(() => ids.every((id) => seen.some((s) => s.id === id)), 'every event handed over');
    // A kill: the store keeps what was last written; nothing is saved at the end.
    const frozen = structuredClone(ctx.store.value);
    await sub.close();
    ctx.store.value = frozen;
    return { seen, ids };
  }

  it('is in the store before the handler starts, and a resumed start hands what was left over again on the next attempt', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const store = memoryStore();
    const ctx = { sim, store };
    const first = await run('rerun', ctx, 6, (s) => s.id % 2 === 0);
    // Each handler found its own batch on the record, at attempt 1, when it started.
    for (const s of first.seen) expect(s.recorded?.[s.key]?.attempt).toBe(1);
    const held = first.ids.filter((id) => id % 2 === 0);
    const stored = store.value as StoredPosition;
    // The store holds what the last hand-over wrote: the held batches, and that last one (finished
    // after the write, which only a later save would have said).
    const last = first.seen.at(-1)?.id as number;
    const recorded = Object.keys(stored.unfinished ?? {}).map(Number);
    expect(recorded.sort((a, b) => a - b)).toEqual([...new Set([...held, last])].sort((a, b) => a - b));

    // The restart: every event comes again (the position never moved past them), the ones left
    // unfinished on attempt 2; none is held this time.
    const second = await run('rerun', ctx, 1, () => false);
    const again = second.seen.filter((s) => first.ids.includes(s.id));
    expect(again.map((s) => s.id).sort((a, b) => a - b)).toEqual(first.ids);
    for (const s of again) expect(s.attempt).toBe(held.includes(s.id) ? 2 : 1);
    // The batch keys are the same in both runs: the record is matched by them.
    for (const s of again) expect(s.key).toBe(first.seen.find((f) => f.id === s.id)?.key);
    await sim.stop();
  }, 60_000);

  it("attempts count across restarts, and 'record' does not read what an earlier run left", async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const store = memoryStore();
    const ctx = { sim, store };
    const first = await run('rerun', ctx, 2, () => true);
    const second = await run('rerun', ctx, 1, (s) => first.ids.includes(s.id));
    expect(second.seen.filter((s) => first.ids.includes(s.id)).map((s) => s.attempt)).toEqual([2, 2]);
    const third = await run('rerun', ctx, 1, (s) => first.ids.includes(s.id));
    expect(third.seen.filter((s) => first.ids.includes(s.id)).map((s) => s.attempt)).toEqual([3, 3]);
    // A deactivation let the work finish: the next activation starts every unit at attempt 1,
    // and records afresh.
    const fourth = await run('record', ctx, 1, (s) => first.ids.includes(s.id));
    expect(fourth.seen.filter((s) => first.ids.includes(s.id)).map((s) => s.attempt)).toEqual([1, 1]);
    const stored = store.value as StoredPosition;
    for (const id of first.ids) expect(stored.unfinished?.[String(id)]?.attempt).toBe(1);
    await sim.stop();
  }, 60_000);

  it("a failing unit gets the policy's attempts in all, those of the run before a crash included", async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const store = memoryStore();
    const c = client(optionsFor(sim, { form: 'extended' }));
    const options = {
      position: { store, resume: true, unfinished: 'rerun' as const },
      batch: { size: 1, waitMs: 1 },
      ack: { onFailure: 'retry' as const, attempts: 3 },
      // Only the hand-overs write: a crash keeps what they wrote.
      positionSaveMs: 3_600_000,
    };
    // Run 1: attempt 1 fails, attempt 2 is cut off by the kill.
    const first: number[] = [];
    const killed = c.events.subscribe(
      'all',
      {
        onBatch: (batch: EventBatch) => {
          first.push(batch.attempt);
          return batch.attempt === 1
            ? Promise.reject(new Error('the host is down'))
            : new Promise<void>(() => {});
        },
        onError: () => {},
      },
      options,
    );
    await until(() => killed.state === 'open', 'open');
    await sim.control.emit(1, { latenessMs: 0 });
    await until(() => first.length === 2, 'attempt 2 handed over');
    const frozen = structuredClone(store.value);
    await killed.close();
    store.value = frozen;
    // Run 2: it comes on attempt 3 (the record), fails, and that was the third: given up, not tried
    // a fourth and fifth time as if the crash had given it a fresh set.
    const second: number[] = [];
    const given: GivenUp[] = [];
    const errors: Error[] = [];
    const restarted = c.events.subscribe(
      'all',
      {
        onBatch: (batch: EventBatch) => {
          second.push(batch.attempt);
          return Promise.reject(new Error('still down'));
        },
        onGiveUp: (gave: GivenUp) => given.push(gave),
        onError: (error: Error) => errors.push(error),
      },
      options,
    );
    await until(() => given.length === 1, 'given up');
    expect(second).toEqual([3]);
    expect(given[0]?.attempts).toBe(3);
    expect(errors.map((error) => error.message).join('\n')).toMatch(/still down; it counts as handled/);
    await restarted.close();
    await sim.stop();
  }, 60_000);

  it('a unit finished on a later attempt stays on the record, as finished, until the streams are saved: caught up again, it comes on that attempt', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const store = memoryStore();
    const ctx = { sim, store };
    // Left unfinished by a kill, then finished on attempt 2 by the next run, which is killed before
    // a save of the streams (only hand-overs write): the streams stored still stand before them.
    const first = await run('rerun', ctx, 2, () => true);
    const second = await run('rerun', ctx, 1, () => false);
    const rerun = second.seen.filter((s) => first.ids.includes(s.id));
    expect(rerun.map((s) => s.attempt)).toEqual([2, 2]);
    const stored = store.value as StoredPosition;
    for (const s of rerun) expect(stored.unfinished?.[s.key]).toMatchObject({ attempt: 2, finished: true });
    expect(stored.streams.extended?.ids ?? []).not.toContain(first.ids[0]);
    // The next run catches them up again: on the attempt they finished on (n8n's trigger puts it
    // in the key, and n8n refuses the key it has), not on attempt 1, which n8n runs again where it
    // never wrote that first execution (it reclaims a key a kill left unstarted).
    const third = await run('rerun', ctx, 1, () => false);
    expect(third.seen.filter((s) => first.ids.includes(s.id)).map((s) => s.attempt)).toEqual([2, 2]);
    await sim.stop();
  }, 60_000);

  it('a unit acknowledged or let go leaves the record; a retry is recorded on its attempt first', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const store = memoryStore();
    const c = client(optionsFor(sim, { form: 'extended' }));
    const attempts: Array<{ attempt: number; recorded: number | undefined }> = [];
    const sub = c.events.subscribe(
      'all',
      {
        onBatch: async (batch: EventBatch) => {
          const recorded = (store.value as StoredPosition).unfinished?.[batch.key]?.attempt;
          attempts.push({ attempt: batch.attempt, recorded });
          if (batch.attempt < 3) throw new Error('the host could not start it');
        },
        onError: () => {},
      },
      {
        position: { store, resume: true, unfinished: 'rerun' },
        batch: { size: 1, waitMs: 1 },
        ack: { onFailure: 'retry', attempts: 3 },
        positionSaveMs: 0,
      },
    );
    await until(() => sub.state === 'open', 'open');
    const [event] = await sim.control.emit(1, { latenessMs: 0 });
    await until(() => sub.stats.delivered === 1, 'acknowledged on the third attempt');
    expect(attempts).toEqual([
      { attempt: 1, recorded: 1 },
      { attempt: 2, recorded: 2 },
      { attempt: 3, recorded: 3 },
    ]);
    // The save after the acknowledgement no longer lists it, and the position covers it.
    await until(() => (store.value as StoredPosition).unfinished === undefined, 'the record emptied');
    expect((store.value as StoredPosition).streams.extended?.ids).toEqual([event?.id]);
    await sub.close();
    await sim.stop();
  }, 60_000);
  it('an event a synchronous onEvent handled leaves the record at once (one at a time, no batch)', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const store = memoryStore();
    const seen: Array<{ id: number; recorded: number | undefined }> = [];
    const sub = client(optionsFor(sim, { form: 'extended' })).events.subscribe(
      'all',
      {
        onEvent: (event) => {
          const keys = Object.keys((store.value as StoredPosition).unfinished ?? {});
          seen.push({ id: event.id as number, recorded: keys.length });
        },
      },
      { position: { store, resume: true, unfinished: 'rerun' }, positionSaveMs: 0 },
    );
    await until(() => sub.state === 'open', 'open');
    const ids = (await sim.control.emit(5, { latenessMs: 0 })).map((event) => event.id as number);
    await until(() => sub.stats.delivered === 5, 'all five handled');
    // Each was on the record when its handler ran, alone: the one before it had left.
    expect(seen).toEqual(ids.map((id) => ({ id, recorded: 1 })));
    await sub.close();
    // The last save: the streams cover all five, and nothing is left on the record.
    expect((store.value as StoredPosition).unfinished).toBeUndefined();
    expect((store.value as StoredPosition).streams.extended?.ids).toEqual([[ids[0], ids[4]]]);
  });
});
