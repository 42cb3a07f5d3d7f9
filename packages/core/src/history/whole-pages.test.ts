import { describe, expect, it } from 'vitest';
import { type ReadIds, wholePages } from './whole-pages.js';

/**
 * Pure tests of wholePages against an in-memory service that sorts on the one-second time alone
 * (ties in an order of each request's own), as a database's top-N sort with OFFSET gives them.
 * The same function runs against the simulator in test/history-as-served.test.ts; here the
 * service's corners are chosen exactly: record ids scattered over a busy second, and a second
 * no number of walks within the bound can read whole.
 */

interface Row {
  id: number;
  /** Epoch seconds, as a service may send the time. */
  timestamp: number;
}

/** A small deterministic generator (xorshift32), so a red run can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/**
 * A service holding `rows`, answering pages of `pageSize` ordered by second, the rows of one
 * second in a new order on every request. `hidden`: rows it counts in every walk of their second
 * but never lists (a repeat stands in their place), as ties that happen to land behind a page
 * boundary on every request would.
 */
function tiedService(
  rows: Row[],
  pageSize: number,
  seed: number,
  hidden = new Set<number>(),
  /** History shows the first `shown` rows, and `more` more after each request (a second filling). */
  filling?: { shown: number; more: number },
) {
  const draw = random(seed);
  const requests = { walks: 0, seconds: 0, ids: 0 };
  let answered = 0;
  /** One request's answer: `of` sorted by second, ties shuffled for this request only. */
  const answer = (all: Row[], offset: number): Row[] => {
    const visible = filling && new Set(rows.slice(0, filling.shown + filling.more * answered++));
    const of = visible ? all.filter((row) => visible.has(row)) : all;
    const keyed = of.map((row) => ({ row, tie: draw() }));
    keyed.sort((a, b) => a.row.timestamp - b.row.timestamp || a.tie - b.tie);
    const page = keyed.slice(offset, offset + pageSize).map(({ row }) => row);
    const shown = of.filter((row) => !hidden.has(row.id));
    return page.map((row) => (hidden.has(row.id) ? (shown[Math.floor(draw() * shown.length)] as Row) : row));
  };
  async function* walk(of: Row[]): AsyncGenerator<unknown[]> {
    for (let offset = 0; ; offset += pageSize) {
      const page = answer(of, offset);
      if (page.length === 0) return;
      yield page;
    }
  }
  const inSecond = (secondMs: number) => rows.filter((row) => row.timestamp * 1000 === secondMs);
  return {
    requests,
    pages(): AsyncIterable<unknown[]> {
      requests.walks++;
      return walk(rows);
    },
    second(secondMs: number): AsyncIterable<unknown[]> {
      requests.seconds++;
      return walk(inSecond(secondMs));
    },
    ids: (async (secondMs, ids) => {
      requests.ids++;
      const wanted = new Set(ids);
      // Asked for by id, a row it never lists is not in the answer either.
      return answer(
        inSecond(secondMs).filter((row) => wanted.has(row.id) && !hidden.has(row.id)),
        0,
      );
    }) satisfies NonNullable<ReadIds>,
  };
}

function recordingLogger() {
  const warnings: { message: string; fields: Record<string, unknown> }[] = [];
  return {
    warnings,
    warn: (message: string, fields?: Record<string, unknown>) =>
      void warnings.push({ message, fields: fields ?? {} }),
  };
}

async function readAll(
  service: ReturnType<typeof tiedService>,
  byIds: boolean,
  logger = recordingLogger(),
): Promise<number[]> {
  const seen: number[] = [];
  for await (const page of wholePages(
    service.pages(),
    { second: (ms) => service.second(ms), ids: byIds ? service.ids : undefined },
    logger,
  )) {
    for (const row of page) seen.push((row as Row).id);
  }
  return seen;
}

const busySecond = 1_800_000_000;

describe('wholePages', () => {
  it('reads a busy second whole, each row once, when its record ids are interleaved with other rows', async () => {
    // Several cameras writing at once: the busy second's 400 rows take every other record id,
    // the next second's rows (a camera running later) the ids between, and one row of the busy
    // second was written by a slow writer 900 ids later. Asking by id around what a walk found
    // cannot reach that straggler when the walk missed it: only the count proves the second
    // whole. Thirty request orders, so the walk misses it in some of them.
    const rows: Row[] = [
      ...Array.from({ length: 30 }, (_, i) => ({ id: 100 + i, timestamp: busySecond - 1 })),
      ...Array.from({ length: 400 }, (_, i) => ({ id: 1_000 + 2 * i, timestamp: busySecond })),
      ...Array.from({ length: 400 }, (_, i) => ({ id: 1_001 + 2 * i, timestamp: busySecond + 1 })),
      { id: 2_700, timestamp: busySecond },
    ];
    const all = rows.map((row) => row.id).sort((a, b) => a - b);
    let walkedSeconds = 0;
    for (let seed = 1; seed <= 30; seed++) {
      for (const byIds of [true, false]) {
        const service = tiedService(rows, 37, seed);
        const logger = recordingLogger();
        const seen = await readAll(service, byIds, logger);
        expect(new Set(seen).size, `seed ${seed}`).toBe(seen.length);
        expect(
          [...seen].sort((a, b) => a - b),
          `seed ${seed}`,
        ).toEqual(all);
        expect(logger.warnings).toEqual([]);
        if (byIds && service.requests.seconds > 0) walkedSeconds++;
      }
    }
    // Asking by id could not prove every order whole: the walks of the second did.
    expect(walkedSeconds).toBeGreaterThan(0);
  });

  it('asks for the missing rows of a busy second by id even where other writers took most ids between them', async () => {
    // 2,000 rows of one second in pages of 16, each row's id 12 after the last (five tasks and
    // other workspaces' cameras writing at once), and rows of the seconds around it. A walk finds
    // about two thirds of the missing rows; by id, one pass over the range the walk found holds
    // them all. Walk after walk, the last rows take seven walks or more.
    const rows: Row[] = [
      ...Array.from({ length: 50 }, (_, i) => ({ id: 1 + i, timestamp: busySecond - 1 })),
      ...Array.from({ length: 2_000 }, (_, i) => ({ id: 100 + 12 * i, timestamp: busySecond })),
      ...Array.from({ length: 50 }, (_, i) => ({ id: 30_000 + i, timestamp: busySecond + 1 })),
    ];
    for (const seed of [1, 2, 3]) {
      const service = tiedService(rows, 16, seed);
      const logger = recordingLogger();
      const seen = await readAll(service, true, logger);
      expect(new Set(seen).size, `seed ${seed}`).toBe(seen.length);
      expect([...seen].sort((a, b) => a - b)).toEqual(rows.map((row) => row.id));
      expect(logger.warnings).toEqual([]);
      // The walk of the whole range, then at most one walk of the second (asked by id, the count
      // proved it whole in every order tried here; walk after walk took eight).
      expect(service.requests.seconds, `seed ${seed}`).toBeLessThanOrEqual(1);
      // About a third of a page per answer: some 2,000 × 0.37 / 5 requests, never one per id.
      expect(service.requests.ids, `seed ${seed}`).toBeLessThan(400);
    }
  });

  it('walks on a second that is still filling until it stops growing, and reads it whole', async () => {
    // History shows a row a moment after it was pushed: read right after a burst, a busy second
    // of 400 rows shows 100 and one more after every request, so every walk lists rows no walk
    // before it could, for some forty walks. Twelve walks in all left rows of it behind.
    // In the order history shows them: the seconds around it first, then the busy second's rows.
    const rows: Row[] = [
      { id: 1, timestamp: busySecond - 1 },
      { id: 402, timestamp: busySecond + 1 },
      ...Array.from({ length: 400 }, (_, i) => ({ id: 2 + i, timestamp: busySecond })),
    ];
    for (const seed of [1, 2, 3]) {
      const service = tiedService(rows, 37, seed, new Set(), { shown: 102, more: 1 });
      const logger = recordingLogger();
      const seen = await readAll(service, false, logger);
      // Every row (a row the growth shifted into a later page comes again there: a repeat, which
      // the catch-up drops by its key, never a skip).
      expect(
        [...new Set(seen)].sort((a, b) => a - b),
        `seed ${seed}`,
      ).toEqual(Array.from({ length: 402 }, (_, i) => i + 1));
      expect(logger.warnings).toEqual([]);
      // It took more than the twelve walks that used to be all.
      expect(service.requests.seconds, `seed ${seed}`).toBeGreaterThan(12);
    }
  });

  it('gives up on a second after 12 walks in a row that find nothing new, says so once, and delivers each row it found once', async () => {
    // 300 rows of one second, 3 of which no walk ever lists (repeats take their places): no
    // number of walks can read it whole, as a second far bigger than a thousand rows may not be.
    const rows: Row[] = [
      { id: 1, timestamp: busySecond - 1 },
      ...Array.from({ length: 300 }, (_, i) => ({ id: 2 + i, timestamp: busySecond })),
      { id: 302, timestamp: busySecond + 1 },
    ];
    const hidden = new Set([50, 150, 250]);
    for (const byIds of [false, true]) {
      const service = tiedService(rows, 40, 3, hidden);
      const logger = recordingLogger();
      const seen = await readAll(service, byIds, logger);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => hidden.has(id))).toEqual([]);
      expect([...seen].sort((a, b) => a - b)).toEqual(
        rows.map((row) => row.id).filter((id) => !hidden.has(id)),
      );
      // The bound: walks while they find rows, then twelve that find none, then one warning
      // naming what is missing and how many walks it took.
      expect(service.requests.seconds).toBeGreaterThanOrEqual(12);
      expect(logger.warnings).toEqual([
        {
          message:
            'history of one second could not be read whole: its rows come in a new order on every request',
          fields: {
            second: new Date(busySecond * 1000).toISOString(),
            found: 297,
            listed: 300,
            walks: service.requests.seconds,
          },
        },
      ]);
    }
  });

  it('keeps a row without a time out of the second it lies in: neither one of its rows nor a key', async () => {
    // The service holds four rows of the busy second (10, 11, 12, 13); a row without a time (99)
    // is listed among them. The walk's second page opens inside the second and repeats 11, so 13
    // was skipped: the second is read again, and only its own rows count towards the proof.
    const at = (id: number, second?: number) => (second === undefined ? { id } : { id, timestamp: second });
    const walk = [
      [at(1, busySecond - 1), at(10, busySecond), at(99), at(11, busySecond)],
      [at(11, busySecond), at(12, busySecond)],
      [at(20, busySecond + 1)],
    ];
    async function* pages() {
      yield* walk;
    }
    let secondsRead = 0;
    async function* second(secondMs: number) {
      secondsRead++;
      expect(secondMs).toBe(busySecond * 1000);
      yield [at(10, busySecond), at(11, busySecond), at(12, busySecond), at(13, busySecond)];
    }
    const logger = recordingLogger();
    const seen: number[] = [];
    for await (const page of wholePages(pages(), { second, ids: undefined }, logger))
      for (const row of page) seen.push((row as Row).id);
    expect(seen).toEqual([1, 10, 99, 11, 12, 20, 13]);
    expect(secondsRead).toBe(1);
    expect(logger.warnings).toEqual([]);
  });
});
