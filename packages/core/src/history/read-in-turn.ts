/** One source of pages, read with the signal that stops it. */
export type PageSource<T> = (signal: AbortSignal) => AsyncIterable<T[]>;

interface Reader<T> {
  pages: T[][];
  done: boolean;
  failed: boolean;
  error: unknown;
  wake: (() => void) | undefined;
}

/**
 * Reads up to `concurrency` sources at once and yields their pages source by source, in the order
 * given: each source's pages come together and in its own order, as if they were read one after
 * another, but the sources after the first are read meanwhile. The history of several tasks is
 * read this way (the service's task filter takes one id): one after another, a catch-up over a
 * busy span waited for every task's round trips in turn.
 *
 * The pages of a source not yet yielded wait in memory: no more than the caller keeps anyway when
 * it gathers everything before using it, as a catch-up window does. A source that fails surfaces
 * its error in its turn, after the pages of the sources before it. Leaving early (break, throw,
 * abort) stops every source still reading.
 */
export async function* readInTurn<T>(
  sources: PageSource<T>[],
  concurrency: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<T[], void, undefined> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const readers: Array<Reader<T> | undefined> = [];
  const start = (source: PageSource<T>): void => {
    const reader: Reader<T> = { pages: [], done: false, failed: false, error: undefined, wake: undefined };
    readers.push(reader);
    void (async () => {
      try {
        for await (const page of source(controller.signal)) {
          reader.pages.push(page);
          reader.wake?.();
        }
      } catch (error) {
        reader.failed = true;
        reader.error = error;
      } finally {
        reader.done = true;
        reader.wake?.();
      }
    })();
  };
  try {
    let next = 0;
    while (next < Math.min(Math.max(1, concurrency), sources.length)) start(sources[next++] as PageSource<T>);
    for (let turn = 0; turn < sources.length; turn++) {
      const reader = readers[turn] as Reader<T>;
      for (;;) {
        const page = reader.pages.shift();
        if (page !== undefined) {
          yield page;
          continue;
        }
        if (reader.done) break;
        await new Promise<void>((resolve) => {
          reader.wake = resolve;
        });
        reader.wake = undefined;
      }
      if (reader.failed) throw reader.error;
      readers[turn] = undefined;
      if (next < sources.length) start(sources[next++] as PageSource<T>);
    }
  } finally {
    controller.abort();
    signal?.removeEventListener('abort', onAbort);
  }
}
