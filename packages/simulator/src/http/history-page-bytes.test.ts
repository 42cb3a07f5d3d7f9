/**
 * `historyPageBytes`: history answers capped by their size in bytes, over real HTTP. A client
 * that takes a page shorter than asked (or than an earlier one) for the last one loses rows here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../simulator.js';
import { call } from '../testing/sim-client.js';
import { pageWithinBytes } from './history-page-bytes.js';

interface Row {
  id?: number;
  task_id: number;
  timestamp: string | number;
}

const HISTORY_END = '2024-06-01T12:00:00Z';
const SIZE = 600;
const BUDGET = 16_384;

describe('pageWithinBytes', () => {
  it('keeps the leading whole rows that fit, counting brackets and commas, and always the first', () => {
    const rows = ['{"a":1}', '{"b":22}', '{"c":333}'];
    expect(pageWithinBytes(rows, 2 + 7 + 1 + 8)).toBe('[{"a":1},{"b":22}]');
    expect(pageWithinBytes(rows, 2 + 7 + 1 + 8 - 1)).toBe('[{"a":1}]');
    expect(pageWithinBytes(rows, 1)).toBe('[{"a":1}]');
    expect(pageWithinBytes(rows, 1000)).toBe(`[${rows.join(',')}]`);
    expect(pageWithinBytes([], 1)).toBe('[]');
    // Bytes, not characters: "é" is two bytes of UTF-8.
    expect(pageWithinBytes(['"é"', '"e"'], 2 + 4 + 1 + 3)).toBe('["é","e"]');
    expect(pageWithinBytes(['"é"', '"e"'], 2 + 4 + 1 + 3 - 1)).toBe('["é"]');
  });
});

describe('history pages capped by bytes', () => {
  let sim: Simulator;
  let asc: Simulator;
  beforeAll(async () => {
    const options = {
      form: 'both' as const,
      historySize: SIZE,
      historyEnd: HISTORY_END,
      historySpanMs: SIZE * 60_000,
      historyPageBytes: BUDGET,
    };
    sim = await startSimulator(options);
    asc = await startSimulator({ ...options, historyOrder: 'asc' });
  });
  afterAll(async () => {
    await Promise.all([sim.stop(), asc.stop()]);
  });

  /** Pages one query by offset, advancing by what each page returned, until an empty page. */
  async function pageThrough(s: Simulator, query: string, as: 'basic' | 'extended') {
    const pages: { length: number; bytes: number }[] = [];
    const rows: Row[] = [];
    for (let offset = 0; ; ) {
      const page = await call<Row[]>(s, `/events/history?${query}&offset=${offset}`, { as });
      expect(page.status).toBe(200);
      if (page.body.length === 0) break;
      pages.push({ length: page.body.length, bytes: Buffer.byteLength(page.text) });
      rows.push(...page.body);
      offset += page.body.length;
    }
    return { pages, rows, ids: rows.map((row) => row.id) };
  }

  it.each([
    ['extended', 'limit=100'],
    ['basic', 'limit=10000'],
  ] as const)(
    '%s: pages of varying length within the budget; offsets cover every row exactly once',
    async (as, query) => {
      const { pages, rows } = await pageThrough(sim, query, as);
      // Every page but the last is followed by more rows, and each is shorter than asked.
      const limit = Number(query.split('=')[1]);
      for (const page of pages) {
        expect(page.length).toBeLessThan(limit);
        expect(page.bytes).toBeLessThanOrEqual(BUDGET);
      }
      const whileRowsRemain = pages.slice(0, -1).map((page) => page.length);
      expect(whileRowsRemain.length).toBeGreaterThan(5);
      let changes = 0;
      for (let n = 1; n < whileRowsRemain.length; n++)
        if (whileRowsRemain[n] !== whileRowsRemain[n - 1]) changes++;
      // Consecutive pages differ in length (rows differ in size), not once but most of the time.
      expect(changes).toBeGreaterThanOrEqual(Math.floor(whileRowsRemain.length / 2));
      expect(rows).toHaveLength(SIZE);
      if (as === 'extended') {
        expect(rows.map((row) => row.id)).toEqual(Array.from({ length: SIZE }, (_, n) => SIZE - n));
      } else {
        // The basic form carries no id: the rows are the seeded records newest first, each once.
        const expected = Array.from({ length: SIZE }, (_, n) => sim.getEvent(SIZE - n));
        expect(rows.map((row) => [row.task_id, row.timestamp])).toEqual(
          expected.map((event) => [event?.task_id, event?.timestamp]),
        );
      }
    },
  );

  it('each page holds as many whole rows as fit: adding the next row would exceed the budget', async () => {
    const first = await call<Row[]>(sim, '/events/history?limit=100', { as: 'extended' });
    const next = await call<Row[]>(sim, `/events/history?limit=1&offset=${first.body.length}`, {
      as: 'extended',
    });
    const nextBytes = Buffer.byteLength(next.text) - 2;
    expect(Buffer.byteLength(first.text) + 1 + nextBytes).toBeGreaterThan(BUDGET);
  });

  it('paging asc with a filter covers every matching row exactly once', async () => {
    const { ids, pages } = await pageThrough(asc, 'task_id=1&limit=100', 'extended');
    const expected = Array.from({ length: SIZE }, (_, n) => asc.getEvent(n + 1))
      .filter((event) => event?.task_id === 1)
      .map((event) => event?.id);
    expect(expected.length).toBeGreaterThan(20);
    expect(ids).toEqual(expected);
    expect(new Set(pages.map((page) => page.length)).size).toBeGreaterThan(1);
  });

  it('a budget smaller than one row still answers one row per page', async () => {
    const tiny = await startSimulator({ historySize: 5, historyPageBytes: 1 });
    try {
      const { ids, pages } = await pageThrough(tiny, 'limit=100', 'extended');
      expect(ids).toEqual([5, 4, 3, 2, 1]);
      expect(pages.map((page) => page.length)).toEqual([1, 1, 1, 1, 1]);
    } finally {
      await tiny.stop();
    }
  });

  it("is part of 'messy': its pages vary in length while rows remain", async () => {
    const messy = await startSimulator({
      realism: 'messy',
      responseLatencyMs: { min: 0, max: 0 },
      historySize: 300,
      historyEnd: HISTORY_END,
    });
    try {
      const { ids, pages } = await pageThrough(messy, 'limit=100', 'extended');
      expect(new Set(ids).size).toBe(300);
      expect(new Set(pages.slice(0, -1).map((page) => page.length)).size).toBeGreaterThan(1);
    } finally {
      await messy.stop();
    }
  });
});
