import { describe, expect, it } from 'vitest';
import { type PageSource, readInTurn } from './read-in-turn.js';

/**
 * A source of `pages` pages named after it, each page answered when the test releases it, so the
 * order of reads and of pages handed on is decided here, not by timers.
 */
function gatedSource(name: string, pages: number, log: string[], fail?: Error) {
  const gates: Array<() => void> = [];
  let started = false;
  let aborted = false;
  const source: PageSource<string> = async function* (signal) {
    started = true;
    signal.addEventListener('abort', () => {
      aborted = true;
      for (const open of gates.splice(0)) open();
    });
    for (let page = 0; page < pages; page++) {
      await new Promise<void>((resolve) => gates.push(resolve));
      if (signal.aborted) return;
      log.push(`${name} read ${page}`);
      yield [`${name}${page}`];
    }
    if (fail) throw fail;
  };
  return {
    source,
    get started() {
      return started;
    },
    get aborted() {
      return aborted;
    },
    /** Answers the next page asked for (waits until it is asked for). */
    async release(): Promise<void> {
      while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
      (gates.shift() as () => void)();
    },
  };
}

async function collect(pages: AsyncIterable<string[]>, into: string[]): Promise<void> {
  for await (const page of pages) into.push(...page);
}

describe('readInTurn', () => {
  it('reads the next sources while the first is read, and hands on each source whole, in the order given', async () => {
    const log: string[] = [];
    const [a, b, c] = [gatedSource('a', 2, log), gatedSource('b', 2, log), gatedSource('c', 1, log)];
    const out: string[] = [];
    const done = collect(readInTurn([a.source, b.source, c.source], 2, undefined), out);
    // b is answered in full before a has answered at all: it was read at once, c was not (two at once).
    await b.release();
    await b.release();
    expect(c.started).toBe(false);
    await a.release();
    await a.release();
    await c.release();
    await done;
    expect(log.slice(0, 2)).toEqual(['b read 0', 'b read 1']);
    expect(out).toEqual(['a0', 'a1', 'b0', 'b1', 'c0']);
  });

  it('surfaces a failed source in its turn, after the sources before it', async () => {
    const log: string[] = [];
    const broken = new Error('task 2 refused');
    const [a, b] = [gatedSource('a', 1, log), gatedSource('b', 1, log, broken)];
    const out: string[] = [];
    const done = collect(readInTurn([a.source, b.source], 2, undefined), out);
    await b.release();
    await a.release();
    await expect(done).rejects.toBe(broken);
    expect(out).toEqual(['a0', 'b0']);
  });

  it('stops every source still reading when the caller leaves or aborts', async () => {
    const log: string[] = [];
    const [a, b] = [gatedSource('a', 3, log), gatedSource('b', 3, log)];
    const pages = readInTurn([a.source, b.source], 2, undefined);
    const first = pages.next();
    await a.release();
    expect((await first).value).toEqual(['a0']);
    await pages.return(undefined);
    expect(a.aborted && b.aborted).toBe(true);

    const caller = new AbortController();
    const [c, d] = [gatedSource('c', 3, log), gatedSource('d', 3, log)];
    const out: string[] = [];
    const done = collect(readInTurn([c.source, d.source], 2, caller.signal), out);
    await c.release();
    while (out.length === 0) await new Promise((resolve) => setImmediate(resolve));
    caller.abort();
    await done;
    expect(c.aborted && d.aborted).toBe(true);
    expect(out).toEqual(['c0']);
  });
});
