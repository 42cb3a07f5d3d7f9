import { describe, expect, it } from 'vitest';
import { client, optionsFor, recording, simulator, toArray } from './helpers.js';

/**
 * Deployments cap history pages below the documented maximum without saying so, and list in
 * either order. Whatever the cap (learned or not) every reader gets every event once.
 */
describe('history page caps the spec does not promise', () => {
  const cases = [7, 50, 100].flatMap((cap) =>
    (['asc', 'desc'] as const).map((order) => [cap, order] as const),
  );

  it.each(cases)(
    'cap %i, %s: historyAll, collectHistory and a catch-up each see all 500 once',
    async (cap, order) => {
      const sim = await simulator({
        form: 'extended',
        historySize: 500,
        historySpanMs: 60_000,
        historyPageCap: cap,
        historyOrder: order,
      });
      const c = client(optionsFor(sim, { form: 'extended' }));
      const expected = Array.from({ length: 500 }, (_, i) => i + 1);

      const all = await toArray(c.events.historyAll({}, { concurrency: 4 }));
      expect(all.map((event) => event.id).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(expected);

      const collected = await c.events.collectHistory({}, { max: 1_000 });
      expect(collected.map((event) => event.id).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(expected);

      // A catch-up (the real client's history context) over the same range.
      const ids: number[] = [];
      const sub = c.events.subscribe(
        'all',
        { onEvent: (event) => void ids.push(event.id as number) },
        { lookBackMs: 120_000 },
      );
      const deadline = Date.now() + 20_000;
      while (ids.length < 500 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      // Positive evidence that nothing else is coming: a sentinel emitted now arrives after them.
      const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
      while (!ids.includes(sentinel?.id as number) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await sub.close();
      expect(ids.slice(0, -1).sort((a, b) => a - b)).toEqual(expected);
      expect(ids.at(-1)).toBe(sentinel?.id);
    },
  );

  it.each(['extended', 'basic'] as const)(
    '%s, pages capped by size in bytes (a length of their own each): everything once, one request past the end',
    async (form) => {
      const sim = await simulator({
        form,
        historySize: 2_000,
        historySpanMs: 60_000,
        historyPageBytes: 16_384,
      });
      const { transport, sent } = recording();
      const options = optionsFor(sim, { form, transport });
      const c = client(form === 'extended' ? options : { ...options, serviceId: undefined });
      const all = await toArray(c.events.historyAll({}));
      expect(new Set(all.map((event) => event.imageUrl)).size).toBe(2_000);
      // Each page at the offset the last one proved: their lengths are the steps between offsets.
      const offsets = sent.map((request) => request.offset);
      const lengths = offsets.slice(1).map((offset, index) => offset - (offsets[index] as number));
      expect(new Set(lengths).size).toBeGreaterThan(3);
      expect(Math.max(...lengths)).toBeLessThan(sent[0]?.limit as number);
      // Every page once and one request past the end: the empty page that proves it.
      expect(offsets.at(-1)).toBe(2_000);
      expect(new Set(offsets).size).toBe(offsets.length);
      await transport.close?.();
    },
  );
});
