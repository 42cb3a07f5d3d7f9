import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it, vi } from 'vitest';
import { createUndiciTransport, type HttpTransport } from '../src/index.js';
import { client, optionsFor, recording, simulator, toArray } from './helpers.js';

function uniqueIds(events: Array<{ id?: number }>): number {
  return new Set(events.map((e) => e.id)).size;
}

/** The offsets of the history requests undici has written, as it writes them (its own channel). */
function writtenOffsets(): { offsets: number[]; stop(): void } {
  const offsets: number[] = [];
  const onSend = (message: unknown) => {
    const path = (message as { request: { path: string } }).request.path;
    const offset = /[?&]offset=(\d+)/.exec(path)?.[1];
    if (path.includes('/events/history') && offset !== undefined) offsets.push(Number(offset));
  };
  const channel = diagnostics.channel('undici:client:sendHeaders');
  channel.subscribe(onSend);
  return { offsets, stop: () => channel.unsubscribe(onSend) };
}

describe('history paging against the simulator', () => {
  it.each(['asc', 'desc'] as const)(
    'extended form (max 100), order %s: every event exactly once, no assumption about order',
    async (historyOrder) => {
      const sim = await simulator({ form: 'extended', historySize: 1_050, historyOrder });
      const c = client(optionsFor(sim, { form: 'extended' }));
      const before = sim.control.stats().requests;
      // One page ahead (concurrency 1): the request count is exact.
      const events = await toArray(c.events.historyAll({}, { concurrency: 1 }));
      expect(events).toHaveLength(1_050);
      expect(uniqueIds(events)).toBe(1_050);
      // 11 pages of 100 (the last one short, which proves nothing), then the empty page that
      // ends the read: nothing asked twice, nothing over the maximum.
      expect(sim.control.stats().requests - before).toBe(12);
    },
  );

  it('the next page is on the wire before the page in hand is handed out (undici writes on a later turn)', async () => {
    const sim = await simulator({ form: 'extended', historySize: 300 });
    const c = client(optionsFor(sim, { form: 'extended' }));
    const written = writtenOffsets();
    try {
      // What the first event of each page (100 per page) found already written.
      const seenAtPageStart: number[][] = [];
      let index = 0;
      for await (const _ of c.events.historyAll({}, { concurrency: 1 })) {
        if (index % 100 === 0) seenAtPageStart.push([...written.offsets]);
        index++;
      }
      expect(index).toBe(300);
      // Without the turn, undici wrote each next request only once the caller had gone through
      // the page in hand (its reused socket waits for an immediate), while the service idled.
      expect(seenAtPageStart).toEqual([
        [0, 100],
        [0, 100, 200],
        [0, 100, 200, 300],
      ]);
    } finally {
      written.stop();
    }
  });

  it('the next page is on the wire before the page in hand is parsed (asked for on its counted rows)', async () => {
    const sim = await simulator({ form: 'basic', historySize: 300 });
    const c = client(optionsFor(sim, { serviceId: undefined, form: 'basic' }));
    const before = sim.control.stats().requests;
    const written = writtenOffsets();
    // What each parse of a history page found already written: JSON.parse is watched, not
    // replaced (every call goes through to it).
    const seenAtParse: number[][] = [];
    const parse = JSON.parse;
    const watch = vi.spyOn(JSON, 'parse').mockImplementation((text, reviver) => {
      if (typeof text === 'string' && text.startsWith('[')) seenAtParse.push([...written.offsets]);
      return parse(text, reviver);
    });
    try {
      const events = await toArray(c.events.historyAll({ limit: 100 }, { concurrency: 1 }));
      expect(events).toHaveLength(300);
    } finally {
      watch.mockRestore();
      written.stop();
    }
    // Parsed after its count, a page no longer holds back the request for the next one (a page
    // with accents is parsed in pieces: each piece found the same, hence the distinct lists), and
    // the empty page at the end asks for nothing: still the pages plus one request.
    const distinct = seenAtParse.filter((seen, i) => i === 0 || String(seen) !== String(seenAtParse[i - 1]));
    expect(distinct).toEqual([
      [0, 100],
      [0, 100, 200],
      [0, 100, 200, 300],
    ]);
    expect(written.offsets).toEqual([0, 100, 200, 300]);
    expect(sim.control.stats().requests - before).toBe(4);
  });

  it('basic form (max 10000): pages of 10000, a limit over the maximum is clamped before sending', async () => {
    const sim = await simulator({ form: 'basic', historySize: 25_000 });
    const c = client(optionsFor(sim, { serviceId: undefined, form: 'basic' }));
    const before = sim.control.stats().requests;
    let count = 0;
    const seen = new Set<string>();
    for await (const event of c.events.historyAll({ limit: 50_000 }, { concurrency: 1 })) {
      count++;
      // Basic events have no record id: the snapshot URL carries it in the simulator.
      seen.add(event.imageUrl ?? '');
    }
    expect(count).toBe(25_000);
    expect(seen.size).toBe(25_000);
    // 3 pages and the empty one.
    expect(sim.control.stats().requests - before).toBe(4);
  });

  it('auto form learns a refused over-maximum limit once and never repeats it', async () => {
    const sim = await simulator({ form: 'extended', historySize: 250, overLimit: 'reject' });
    const logs: string[] = [];
    const c = client(optionsFor(sim, { logger: { info: (message) => logs.push(message) } }));
    const before = sim.control.stats().requests;
    expect(await toArray(c.events.historyAll({}, { concurrency: 1 }))).toHaveLength(250);
    // One refused request (limit 10000 → 422 "limit must be <= 100"), then 3 pages and the empty one.
    expect(sim.control.stats().requests - before).toBe(5);
    expect(logs).toContain('history limit maximum learned from the service');
    const again = sim.control.stats().requests;
    expect(await c.events.history({ limit: 500 })).toHaveLength(100);
    expect(await toArray(c.events.historyAll({}, { concurrency: 1 }))).toHaveLength(250);
    expect(sim.control.stats().requests - again).toBe(1 + 4);
  });

  it('auto form against a silently clamping deployment still reads everything', async () => {
    const sim = await simulator({ form: 'extended', historySize: 230, overLimit: 'clamp' });
    const c = client(optionsFor(sim));
    const events = await toArray(c.events.historyAll());
    expect(events).toHaveLength(230);
    expect(uniqueIds(events)).toBe(230);
  });

  it('auto form against a basic deployment keeps the large pages', async () => {
    const sim = await simulator({ form: 'basic', historySize: 12_000 });
    const c = client(optionsFor(sim, { serviceId: undefined }));
    const before = sim.control.stats().requests;
    expect(await toArray(c.events.historyAll({}, { concurrency: 1 }))).toHaveLength(12_000);
    expect(sim.control.stats().requests - before).toBe(3);
  });

  it('by default: each page at the offset the last one proved, then one request to prove the end', async () => {
    const sim = await simulator({ form: 'extended', historySize: 1_050, historyOrder: 'desc' });
    const { transport, sent } = recording();
    const c = client(optionsFor(sim, { form: 'extended', transport }));
    const events = await toArray(c.events.historyAll());
    expect(events).toHaveLength(1_050);
    expect(uniqueIds(events)).toBe(1_050);
    expect(sent.map((r) => r.offset)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1050]);
    await transport.close?.();
  });

  it('reads pages ahead on request: every event once, each offset asked once, none over the maximum', async () => {
    const sim = await simulator({ form: 'extended', historySize: 1_050, historyOrder: 'desc' });
    const { transport, sent } = recording();
    const c = client(optionsFor(sim, { form: 'extended', transport }));
    const events = await toArray(c.events.historyAll({}, { concurrency: 4 }));
    expect(events).toHaveLength(1_050);
    expect(uniqueIds(events)).toBe(1_050);
    const offsets = sent.map((r) => r.offset);
    expect(new Set(offsets).size).toBe(offsets.length);
    expect(sent.every((r) => r.limit === 100)).toBe(true);
    // 11 pages and the empty one, plus at most the 3 read ahead past the short one (aborted):
    // the price of reading ahead, which is why it is not the default.
    expect(sent.length).toBeGreaterThanOrEqual(12);
    expect(sent.length).toBeLessThanOrEqual(15);
    await transport.close?.();
  });

  it('auto form with a window: the first answer settles the limit before any page is read ahead', async () => {
    const sim = await simulator({ form: 'extended', historySize: 950, overLimit: 'reject' });
    const { transport, sent } = recording();
    const c = client(optionsFor(sim, { transport }));
    expect(await toArray(c.events.historyAll({}, { concurrency: 4 }))).toHaveLength(950);
    // Refused once at 10000, then offset 0 again with 100; only then the window opens.
    expect(sent.slice(0, 2)).toEqual([
      { offset: 0, limit: 10_000 },
      { offset: 0, limit: 100 },
    ]);
    expect(sent.slice(1).every((r) => r.limit === 100)).toBe(true);
    const later = sent.slice(2).map((r) => r.offset);
    expect(new Set(later).size).toBe(later.length);
    expect(later.includes(0)).toBe(false);
    await transport.close?.();
  });

  it('refuses a bad concurrency naming it, before any request', async () => {
    const sim = await simulator({ form: 'extended', historySize: 10 });
    const c = client(optionsFor(sim, { form: 'extended' }));
    const before = sim.control.stats().requests;
    await expect(toArray(c.events.historyAll({}, { concurrency: 0 }))).rejects.toThrow(
      /Invalid concurrency: got number 0; expected a whole number from 1 to 16/,
    );
    await expect(c.events.collectHistory({}, { max: 5, concurrency: 2.5 })).rejects.toThrow(/concurrency/);
    expect(sim.control.stats().requests - before).toBe(0);
  });

  it('respects filters and a starting offset across pages', async () => {
    const sim = await simulator({ form: 'extended', historySize: 2_000 });
    const c = client(optionsFor(sim, { form: 'extended' }));
    const taskId = sim.world.tasks[0]?.id ?? 1;
    const all = await toArray(c.events.historyAll({ taskId }));
    expect(all.length).toBeGreaterThan(100);
    expect(all.every((e) => e.taskId === taskId)).toBe(true);
    const skipped = await toArray(c.events.historyAll({ taskId, offset: 50 }));
    expect(skipped).toHaveLength(all.length - 50);
  });

  it('collectHistory stops at max and asks for no more than needed', async () => {
    const sim = await simulator({ form: 'extended', historySize: 1_000 });
    const c = client(optionsFor(sim, { form: 'extended' }));
    const before = sim.control.stats().requests;
    const events = await c.events.collectHistory({}, { max: 250 });
    expect(events).toHaveLength(250);
    expect(uniqueIds(events)).toBe(250);
    // 3 pages, plus at most one prefetched page that is abandoned.
    expect(sim.control.stats().requests - before).toBeLessThanOrEqual(4);
    expect(await c.events.collectHistory(undefined, { max: 7 })).toHaveLength(7);
    await expect(c.events.collectHistory({}, { max: 0 })).rejects.toThrow(/Invalid max/);
  });

  it.each([
    ['desc', 'older'],
    ['asc', 'newer'],
  ] as const)(
    'collectHistoryCapped (order %s) says the cap cut events off, and at which end (%s)',
    async (historyOrder, missing) => {
      const sim = await simulator({ form: 'extended', historySize: 300, historyOrder });
      const c = client(optionsFor(sim, { form: 'extended' }));
      const all = await toArray(c.events.historyAll());
      const capped = await c.events.collectHistoryCapped({}, { max: 120 });
      // Exactly what was asked for (the proof event is not returned), the first the service lists.
      expect(capped.events.map((event) => event.id)).toEqual(all.slice(0, 120).map((event) => event.id));
      expect(capped.truncated).toBe(true);
      expect(capped.missing).toBe(missing);
      const times = capped.events.map((event) => event.occurredAt.getTime());
      expect(capped.span).toEqual({ from: new Date(Math.min(...times)), to: new Date(Math.max(...times)) });
      // The events not read lie past the span at the end named.
      const rest = all.slice(120).map((event) => event.occurredAt.getTime());
      if (missing === 'older')
        expect(Math.max(...rest)).toBeLessThanOrEqual(capped.span?.from.getTime() ?? 0);
      else expect(Math.min(...rest)).toBeGreaterThanOrEqual(capped.span?.to.getTime() ?? 0);

      // A cap the history fits in, even exactly: complete, nothing said missing.
      const whole = await c.events.collectHistoryCapped({}, { max: 300 });
      expect(whole).toMatchObject({ truncated: false });
      expect(whole.events).toHaveLength(300);
      expect(whole.missing).toBeUndefined();
      const empty = await c.events.collectHistoryCapped({ taskId: 999_999 }, { max: 10 });
      expect(empty).toEqual({ events: [], truncated: false, span: undefined });
      await expect(c.events.collectHistoryCapped({}, { max: 0 })).rejects.toThrow(/Invalid max/);
    },
  );

  it('stops cleanly when the caller breaks out or aborts', async () => {
    const sim = await simulator({ form: 'extended', historySize: 1_000 });
    const c = client(optionsFor(sim, { form: 'extended' }));
    let n = 0;
    for await (const _event of c.events.historyAll()) if (++n === 150) break;
    expect(n).toBe(150);
    const controller = new AbortController();
    const seen: number[] = [];
    const run = (async () => {
      for await (const event of c.events.historyAll({}, { signal: controller.signal })) {
        seen.push(event.id ?? 0);
        if (seen.length === 120) controller.abort();
      }
    })();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.length).toBeLessThanOrEqual(200);
  });

  it('skips a malformed history event, reports it and goes on', async () => {
    const sim = await simulator({ form: 'extended', historySize: 10 });
    // The simulator only serves well-formed history; this wrapper around the real transport
    // breaks one event of a real answer, a corner only a misbehaving deployment reaches.
    const real = createUndiciTransport();
    const breaking: HttpTransport = {
      async request(req) {
        const response = await real.request(req);
        if (!req.url.includes('/events/history')) return response;
        const events = JSON.parse(await response.text()) as Array<Record<string, unknown>>;
        if (events[1]) delete events[1].timestamp;
        const text = JSON.stringify(events);
        return { ...response, text: async () => text, bytes: async () => new TextEncoder().encode(text) };
      },
      close: () => real.close?.() ?? Promise.resolve(),
    };
    const problems: string[][] = [];
    const warnings: string[] = [];
    const c = client(
      optionsFor(sim, { form: 'extended', transport: breaking, logger: { warn: (m) => warnings.push(m) } }),
    );
    const events = await c.events.history({}, { onProblem: (p) => problems.push(p.problems) });
    expect(events).toHaveLength(9);
    expect(problems).toEqual([['timestamp is missing']]);
    expect(warnings).toEqual(['history event skipped: it could not be read']);
    const all = await toArray(c.events.historyAll());
    expect(all).toHaveLength(9);
    await real.close?.();
  });
});

describe('raw history (events.historyRaw)', () => {
  it('yields the service items unchanged, page after page, and stops at max asking for no more than needed', async () => {
    const sim = await simulator({ form: 'extended', historySize: 230 });
    const c = client(optionsFor(sim, { form: 'extended' }));
    // One page ahead only: pages read ahead past the end and aborted could still reach the
    // simulator after `before` below and blur its request count.
    const normalized = await toArray(c.events.historyAll({}, { concurrency: 1 }));
    const raw = (await toArray(c.events.historyRaw({}, { concurrency: 1 }))) as Array<
      Record<string, unknown>
    >;
    expect(raw).toHaveLength(230);
    // Snake-case fields of the spec, as sent: nothing renamed, nothing added.
    expect(raw.map((item) => item.id)).toEqual(normalized.map((event) => event.id));
    expect(raw[0]).toHaveProperty('event_name', normalized[0]?.eventName);
    expect(raw[0]).not.toHaveProperty('eventName');

    const before = sim.control.stats().requests;
    const some = await toArray(c.events.historyRaw({}, { max: 7 }));
    expect(some).toHaveLength(7);
    expect(sim.control.stats().requests - before).toBe(1);
  });

  it('passes an item core could not normalize on unchanged, and refuses a bad max naming it', async () => {
    const sim = await simulator({ form: 'extended', historySize: 3 });
    // As above: the simulator only serves well-formed history, so one item of a real answer is broken.
    const real = createUndiciTransport();
    const breaking: HttpTransport = {
      async request(req) {
        const response = await real.request(req);
        if (!req.url.includes('/events/history')) return response;
        const events = JSON.parse(await response.text()) as Array<Record<string, unknown>>;
        if (events[1]) delete events[1].timestamp;
        const text = JSON.stringify(events);
        return { ...response, text: async () => text, bytes: async () => new TextEncoder().encode(text) };
      },
      close: () => real.close?.() ?? Promise.resolve(),
    };
    const c = client(optionsFor(sim, { form: 'extended', transport: breaking }));
    expect(await toArray(c.events.historyAll())).toHaveLength(2);
    const raw = (await toArray(c.events.historyRaw())) as Array<Record<string, unknown>>;
    expect(raw).toHaveLength(3);
    expect(raw[1]).not.toHaveProperty('timestamp');
    await expect(toArray(c.events.historyRaw({}, { max: 0 }))).rejects.toThrow(
      /Invalid max: got number 0; expected a whole number of at least 1/,
    );
    await real.close?.();
  });
});
