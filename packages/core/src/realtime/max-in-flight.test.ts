import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ObservationEvent } from '../model/observation-event.js';
import type { StoredPosition } from '../ports.js';
import { memoryStore } from './__tests__/memory-store.js';
import { recorder, waitFor } from './__tests__/recorder.js';
import { simulatorContext } from './__tests__/simulator-context.js';
import { expandIds } from './position.js';
import { createSubscription } from './subscription-handle.js';

const fast = { heartbeatMs: 1_000, backoff: { baseMs: 5, maxMs: 50 }, positionSaveMs: 0 };

/** Record ids a saved position counts as delivered. */
function savedIds(position: StoredPosition | undefined): number[] {
  return Object.values(position?.streams ?? {}).flatMap((stream) => expandIds(stream.ids ?? []));
}

/** A handler that keeps every event's promise pending until the test settles it. */
function heldHandler() {
  const seen: ObservationEvent[] = [];
  const settle = new Map<number, () => void>();
  return {
    seen,
    onEvent: (event: ObservationEvent) => {
      seen.push(event);
      return new Promise<void>((resolve) => settle.set(event.id as number, resolve));
    },
    async settle(id: number | undefined) {
      settle.get(id as number)?.();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('maxInFlight over real sockets, with a durable position', () => {
  let sim: Simulator;
  beforeEach(async () => {
    sim = await startSimulator({ historySize: 0 });
  });
  afterEach(async () => {
    await sim.stop();
  });

  it('hands N events over at once, moves the position only past settled prefixes, and a restart re-reads the rest', async () => {
    const store = memoryStore(undefined, { keepHistory: true });
    const handler = heldHandler();
    const first = recorder(handler.onEvent);
    const sub = createSubscription(simulatorContext(sim), 'all', first.handlers, {
      ...fast,
      position: store,
      maxInFlight: 5,
    });
    await waitFor(() => sub.state === 'open', 'open');
    const sent = await sim.control.emit(8, { latenessMs: 0 });
    const ids = sent.map((event) => event.id);
    // Five with the handler while none has finished; the other three arrived and wait.
    await waitFor(() => sub.stats.queued === 3, 'three waiting');
    expect(handler.seen.map((event) => event.id)).toEqual(ids.slice(0, 5));

    // Later ones finish first: none of them counts until the first one does.
    await handler.settle(ids[1]);
    await handler.settle(ids[2]);
    await handler.settle(ids[0]);
    // 0, 1 and 2 complete together, in order; the three waiting are handed over.
    await waitFor(() => sub.stats.delivered === 3, 'three delivered');
    await waitFor(() => handler.seen.length === 8, 'three more handed over');
    expect(handler.seen.map((event) => event.id)).toEqual(ids);
    expect(sub.stats.queued).toBe(0);
    // The evidence: no position ever saved covers 1 or 2 without 0.
    await waitFor(() => savedIds(store.history.at(-1)).includes(ids[0] as number), 'a save covering 0');
    for (const saved of store.history) {
      const covered = savedIds(saved);
      if (covered.includes(ids[1] as number) || covered.includes(ids[2] as number))
        expect(covered).toContain(ids[0]);
    }

    // Closed with 3..7 in flight; 3 finishes after the close: it does not count.
    await sub.close();
    await handler.settle(ids[3]);
    expect(sub.stats.delivered).toBe(3);

    const second = recorder();
    const restarted = createSubscription(simulatorContext(sim), 'all', second.handlers, {
      ...fast,
      position: store,
    });
    await waitFor(() => restarted.state === 'open', 'open again');
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    await waitFor(() => second.events.some((event) => event.id === sentinel?.id), 'the sentinel');
    // Exactly what was not finished before the close, once, then the live sentinel.
    expect(second.events.map((event) => event.id)).toEqual([...ids.slice(3), sentinel?.id]);
    expect(second.errors).toEqual([]);
    await restarted.close();
  });

  it('many in flight under a stream: every event once, in order, none handed over beyond the limit', async () => {
    let outstanding = 0;
    let peak = 0;
    const rec = recorder(async () => {
      outstanding++;
      peak = Math.max(peak, outstanding);
      // Settle in a scrambled order: some at once, some after a few turns of the event loop.
      const turns = Math.floor(Math.random() * 4);
      for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
      outstanding--;
    });
    const sub = createSubscription(simulatorContext(sim), 'all', rec.handlers, { ...fast, maxInFlight: 16 });
    await waitFor(() => sub.state === 'open', 'open');
    const sent = await sim.control.emit(500, { latenessMs: 0 });
    await waitFor(() => sub.stats.delivered === 500, 'all delivered');
    expect(rec.events.map((event) => event.id)).toEqual(sent.map((event) => event.id));
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(16);
    await sub.close();
  });
});
