import { describe, expect, it } from 'vitest';
import { completeLogger } from '../client/ports.js';
import { iteratePages, type Page } from './page-iterator.js';

// Pure tests of the stop and prefetch rules with an in-memory page source; the same iterator is
// exercised against the simulator in test/history.test.ts.
const logger = completeLogger(undefined);

function source(total: number, pageSize: number, log: string[]) {
  return async (offset: number): Promise<Page<number>> => {
    log.push(`fetch ${offset}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
    // Deliberately unsorted within a page: stop rules must not care.
    const items = Array.from(
      { length: Math.max(0, Math.min(pageSize, total - offset)) },
      (_, i) => offset + i,
    ).reverse();
    return { items, limitUsed: pageSize };
  };
}

describe('iteratePages', () => {
  it('yields every item once and stops on the short page', async () => {
    const log: string[] = [];
    const seen: number[] = [];
    for await (const page of iteratePages(source(25, 10, log), 0, undefined, logger)) seen.push(...page);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(log).toEqual(['fetch 0', 'fetch 10', 'fetch 20']);
  });

  it('stops on an empty page when the total is a multiple of the page size', async () => {
    const log: string[] = [];
    let count = 0;
    for await (const page of iteratePages(source(20, 10, log), 0, undefined, logger)) count += page.length;
    expect(count).toBe(20);
    expect(log).toEqual(['fetch 0', 'fetch 10', 'fetch 20']);
  });

  it('requests the next page before the caller is done with the current one', async () => {
    const log: string[] = [];
    for await (const page of iteratePages(source(30, 10, log), 0, undefined, logger)) {
      log.push(`consume ${Math.min(...page)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(log.slice(0, 3)).toEqual(['fetch 0', 'fetch 10', 'consume 0']);
  });

  it('stops after a long run of the same page (offset ignored), yielding it once', async () => {
    let fetches = 0;
    const pages: number[][] = [];
    const same = async (): Promise<Page<number>> => {
      fetches++;
      return { items: [1, 2, 3], limitUsed: 3 };
    };
    for await (const page of iteratePages(same, 0, undefined, logger)) pages.push(page);
    expect(pages).toEqual([[1, 2, 3]]);
    expect(fetches).toBeGreaterThan(2);
    expect(fetches).toBeLessThanOrEqual(22);
  });

  it('loses nothing when a newest-first range grows by a page between two reads', async () => {
    // Events 0..249 exist, newest first; after the first read exactly one page of newer events
    // (250..259) arrives, so the page at offset 10 repeats the page read at offset 0.
    let newest = 249;
    const fetch = async (offset: number): Promise<Page<number>> => {
      const items: number[] = [];
      for (let id = newest - offset; id > newest - offset - 10 && id >= 0; id--) items.push(id);
      if (offset === 0) newest = 259;
      return { items, limitUsed: 10 };
    };
    const seen = new Set<number>();
    for await (const page of iteratePages(fetch, 0, undefined, logger)) for (const id of page) seen.add(id);
    for (let id = 0; id <= 249; id++) expect(seen.has(id), `event ${id}`).toBe(true);
  });

  it('aborts the page in flight when the caller leaves early or aborts', async () => {
    const signals: AbortSignal[] = [];
    const fetch = async (offset: number, signal: AbortSignal): Promise<Page<number>> => {
      signals.push(signal);
      return { items: [offset, offset + 1], limitUsed: 2 };
    };
    for await (const _page of iteratePages(fetch, 0, undefined, logger)) break;
    expect(signals.every((s) => s.aborted)).toBe(true);

    const controller = new AbortController();
    const run = (async () => {
      for await (const _page of iteratePages(
        async (_offset, signal) =>
          new Promise<Page<number>>((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
          ),
        0,
        controller.signal,
        logger,
      )) {
        // never reached
      }
    })();
    controller.abort(new Error('stop'));
    await expect(run).rejects.toThrow('stop');
  });
});
