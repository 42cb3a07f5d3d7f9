import type { SimulatedEvent } from '@observation-service/simulator';
import { describe, expect, it } from 'vitest';
import type { ObservationEvent } from '../src/model/observation-event.js';
import { recorder, waitFor } from '../src/realtime/__tests__/recorder.js';
import { simulatorContext } from '../src/realtime/__tests__/simulator-context.js';
import { resolveSelection } from '../src/realtime/selection.js';
import { resolveOptions } from '../src/realtime/subscribe-options.js';
import { RealtimeSubscription } from '../src/realtime/subscription.js';
import { createSubscription } from '../src/realtime/subscription-handle.js';
import type { SubscribeOptions } from '../src/realtime/types.js';
import { simulator } from './helpers.js';

/**
 * The limits core's README states under "Delivery guarantee, and its limits", each shown to be
 * exactly what it says and no worse: what is repeated or missed is only what the README names.
 * (The crash limits are in crash-limits.test.ts: they need a process to kill.)
 */

const ids = (events: readonly SimulatedEvent[]) => events.map((event) => event.id);
const secondOf = (time: string | number | Date) => Math.floor(new Date(time).getTime() / 1000) * 1000;

/** How often each record id was handed over. */
function counts(events: readonly ObservationEvent[]): Map<number, number> {
  const seen = new Map<number, number>();
  for (const event of events) seen.set(event.id as number, (seen.get(event.id as number) ?? 0) + 1);
  return seen;
}

async function earlyInASecond(): Promise<void> {
  while (Date.now() % 1000 > 150) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('a fresh start whose first read of its start second does not see everything', () => {
  it.each([
    { why: 'the first read fails', failFirstRead: true, historyLagMs: 0 },
    { why: 'history shows events only 700 ms after their push', failFirstRead: false, historyLagMs: 700 },
  ])(
    '$why: a repeat of at most the start second, never a loss',
    async ({ failFirstRead, historyLagMs }) => {
      const sim = await simulator({ form: 'extended', historySize: 0 });
      sim.control.setHistoryLag(historyLagMs);
      // Published before subscribe(), stamped before the start second: the past, never delivered.
      const older: SimulatedEvent[] = [];
      // Published before subscribe() in the start second: what the first read should have found.
      let before: SimulatedEvent[] = [];
      // Stamped early in a second and subscribed in the same second (tried again on a slow turn).
      for (;;) {
        await earlyInASecond();
        const second = secondOf(Date.now());
        older.push(...(await sim.control.emit(3, { latenessMs: 1_500 })));
        before = await sim.control.emit(5, { latenessMs: 0 });
        if (secondOf(Date.now()) === second && before.every((e) => secondOf(e.timestamp) === second)) break;
        older.push(...before);
      }
      if (failFirstRead) sim.control.failNext(1, 500);
      // The socket answers late: what is published meanwhile reaches only history.
      sim.control.delayUpgrades(400);
      const rec = recorder();
      const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, {
        backoff: { baseMs: 5, maxMs: 50 },
      });
      try {
        await waitFor(() => sim.control.stats().upgradesPending === 1, 'the upgrade request');
        const startSecond = Date.parse(sub.position.streams.extended?.from ?? '');
        expect(startSecond).toBe(secondOf(before[0]?.timestamp ?? 0));
        // Published while the socket opens: stamped in the start second or later (delivered once),
        // and stamped before it (missed: the first limit the README names).
        const during = await sim.control.emit(5, { latenessMs: 0 });
        const duringOlder = await sim.control.emit(2, { latenessMs: 3_000 });
        await waitFor(() => sub.state === 'open', 'open');
        // Live, stamped before the start second: delivered, as it arrives live.
        const after = [
          ...(await sim.control.emit(3, { latenessMs: 0 })),
          ...(await sim.control.emit(2, { latenessMs: 3_000 })),
        ];
        // The start's reads of its second (at once, and once historyLagMs has passed) are done.
        await waitFor(() => sub.stats.readingBack === 0, 'the reads of the start second');
        const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
        const expected = [...ids(during), ...ids(after), sentinel?.id as number];
        await waitFor(() => rec.events.some((e) => e.id === sentinel?.id), 'the sentinel', 20_000);
        await waitFor(() => expected.every((id) => rec.events.some((e) => e.id === id)), 'every event');

        const seen = counts(rec.events);
        expect([...seen.values()].every((n) => n === 1)).toBe(true);
        for (const id of expected) expect(seen.get(id)).toBe(1);
        // What came beyond that is only events of the start second published before the start.
        const extra = [...seen.keys()].filter((id) => !expected.includes(id));
        expect(extra.every((id) => ids(before).includes(id))).toBe(true);
        for (const event of rec.events.filter((e) => extra.includes(e.id as number)))
          expect(secondOf(event.occurredAt)).toBe(startSecond);
        // A failed first read knew none of them: each is delivered (once, above).
        console.log(
          `fresh start (${failFirstRead ? 'first read failed' : 'history lag'}): ${extra.length} of the ${before.length} events published before it in its second repeated`,
        );
        if (failFirstRead) expect(extra.sort((a, b) => a - b)).toEqual(ids(before));
        for (const id of [...ids(older), ...ids(duringOlder)]) expect(seen.has(id)).toBe(false);
      } finally {
        await sub.close();
      }
    },
    60_000,
  );
});

describe('DEDUPE_CAPACITY: more keys within the lateness than the memory holds', () => {
  it('is reported once, and a catch-up reads back only to where the memory reaches; nothing else is missed', async () => {
    const CAPACITY = 50;
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const rec = recorder();
    // The capacity is an internal knob (100,000 for users): the run is built as startRun builds
    // it, with a small capacity, so that a few seconds of events overflow it.
    const options: SubscribeOptions = {
      lookBackMs: 60_000,
      allowedLatenessMs: 60_000,
      backoff: { baseMs: 5, maxMs: 50 },
    };
    const sub = new RealtimeSubscription(
      simulatorContext(sim),
      resolveSelection('all'),
      rec.handlers,
      { ...resolveOptions(options), dedupeCapacity: CAPACITY },
      'extended',
      { stateChanged() {} },
    );
    sub.start();
    try {
      await waitFor(() => sub.state === 'open' && sub.stats.readingBack === 0, 'open, its look-back read');
      // 120 events live, ten in each of twelve seconds 40..29 s ago (each a late one, all within
      // the allowed lateness), then ten more 28 s ago: 130 keys in a memory of 50.
      const live: SimulatedEvent[] = [];
      for (let ago = 40; ago >= 28; ago--)
        live.push(...(await sim.control.emit(10, { latenessMs: ago * 1000 })));
      await waitFor(() => rec.events.length === live.length, 'the live events');
      const capacityErrors = () =>
        rec.errors.filter((e) => (e as { code?: string }).code === 'DEDUPE_CAPACITY');
      expect(capacityErrors()).toHaveLength(1);
      // Where the memory reaches: the position's start is no earlier (nothing older can be told
      // apart), and no later than the oldest key it still holds.
      const reach = Date.parse(sub.position.streams.extended?.from ?? '');
      const held = live.slice(-CAPACITY);
      expect(reach).toBeLessThanOrEqual(Math.min(...held.map((e) => Date.parse(e.timestamp))));
      expect(reach).toBeGreaterThan(Date.parse(live[0]?.timestamp ?? ''));

      // An outage: on-time events, late ones stamped after the reach and late ones before it
      // (within the allowed lateness, so a catch-up without the capacity limit would read them).
      sim.control.refuseConnections(300);
      sim.control.dropConnections();
      await waitFor(() => sub.state !== 'open', 'the drop');
      const onTime = await sim.control.emit(5, { latenessMs: 0 });
      const lateAfterReach = await sim.control.emit(5, { latenessMs: 10_000 });
      const lateBeforeReach = await sim.control.emit(5, { latenessMs: Date.now() - (reach - 3_000) });
      expect(lateBeforeReach.every((e) => Date.parse(e.timestamp) < reach)).toBe(true);
      await waitFor(
        () => sub.state === 'open' && sub.stats.readingBack === 0,
        'the catch-up and its read-back',
      );
      const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
      await waitFor(() => rec.events.some((e) => e.id === sentinel?.id), 'the sentinel');

      const seen = counts(rec.events);
      // Nothing twice: the shortened read-back skips what the memory forgot.
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      for (const id of [...ids(live), ...ids(onTime), ...ids(lateAfterReach), sentinel?.id as number])
        expect(seen.get(id)).toBe(1);
      // The one loss the README states: published while down, stamped before the memory's reach.
      for (const id of ids(lateBeforeReach)) expect(seen.has(id)).toBe(false);
      // Reported once, whatever came after.
      expect(capacityErrors()).toHaveLength(1);
    } finally {
      await sub.close();
    }
  }, 60_000);
});

describe('maxLookBackMs on its own', () => {
  it('an outage longer than it is caught up exactly from that point, reported once as BACKFILL_TRUNCATED', async () => {
    const MAX_LOOK_BACK_MS = 1_000;
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const rec = recorder();
    const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, {
      maxLookBackMs: MAX_LOOK_BACK_MS,
    });
    try {
      await waitFor(() => sub.state === 'open', 'open');
      const [first] = await sim.control.emit(1, { latenessMs: 0 });
      await waitFor(() => rec.events.length === 1, 'a live event');
      // Down for well over the limit, events published on time all along.
      sim.control.refuseConnections(2_500);
      sim.control.dropConnections();
      await waitFor(() => sub.state !== 'open', 'the drop');
      const down: SimulatedEvent[] = [];
      while (sub.state !== 'open') {
        down.push(...(await sim.control.emit(1, { latenessMs: 0 })));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await waitFor(() => sub.stats.readingBack === 0, 'the catch-up and its read-back', 20_000);
      const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
      await waitFor(() => rec.events.some((e) => e.id === sentinel?.id), 'the sentinel');

      const truncated = rec.errors.filter((e) => (e as { code?: string }).code === 'BACKFILL_TRUNCATED');
      expect(truncated).toHaveLength(1);
      const from = /only from (\S+):/.exec(truncated[0]?.message ?? '')?.[1];
      const cutoff = Date.parse(from ?? '');
      // The point is maxLookBackMs before the socket opened again: after the last event missed
      // for good, and the outage reached further back than it.
      expect(cutoff).toBeGreaterThan(Date.parse(first?.timestamp ?? ''));
      const seen = counts(rec.events);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      // Exactly from that point (history has whole seconds: from the second it falls in).
      const kept = down.filter((e) => Date.parse(e.timestamp) >= secondOf(cutoff));
      const cut = down.filter((e) => Date.parse(e.timestamp) < secondOf(cutoff));
      expect(kept.length).toBeGreaterThan(0);
      expect(cut.length).toBeGreaterThan(0);
      for (const id of [first?.id as number, ...ids(kept), sentinel?.id as number])
        expect(seen.get(id)).toBe(1);
      for (const id of ids(cut)) expect(seen.has(id)).toBe(false);
      console.log(
        `maxLookBackMs: ${down.length} published while down, ${cut.length} before the cutoff missed, ${kept.length} caught up`,
      );
    } finally {
      await sub.close();
    }
  }, 60_000);
});
