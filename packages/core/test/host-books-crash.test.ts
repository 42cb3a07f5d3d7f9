import { seededRandom } from '@observation-service/simulator';
import { describe, expect, it } from 'vitest';
import type { EventBatch, StoredPosition, Subscription } from '../src/index.js';
import { memoryStore } from '../src/realtime/__tests__/memory-store.js';
import { client, optionsFor, simulator, waiter } from './helpers.js';

const until = waiter(60_000);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Status = 'new' | 'running' | 'success' | 'crashed';

/** One stop: what n8n had not finished, and the record as its database held it. */
interface Stop {
  run: number;
  unfinished: Set<number>;
  recorded: Set<number>;
}

/**
 * A host with n8n's books, in process, under kills at random points: what makes a repeat, and
 * what bounds it, is the host's bookkeeping, not its engine.
 * - It writes the position to its database only when it starts an execution (n8n saves a
 *   trigger's static data at each emit); a kill keeps what the last start wrote.
 * - It refuses a second execution under a key it has (n8n's deduplication key: the trigger puts
 *   the attempt in it), and a kill gives back the keys of executions it had not started yet.
 * - Executions finish out of order, after random times; a kill cuts the ones running, some after
 *   their work was done and before they were recorded finished.
 * The bound the n8n README states, checked per stop: an event's work is done again only after a
 * stop that left it unfinished or on the saved record, once per such stop; nothing is lost.
 */
describe('crash restarts against a host that keeps n8n-like books', () => {
  it('every repeat follows a stop that left its event unfinished or on the saved record; none lost', async () => {
    // A red run prints its seed; CRASH_SEED repeats its points, CRASH_KILLS sets their count.
    const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 1_000_000));
    console.log(`host books crash test: seed ${seed} (CRASH_SEED=${seed} repeats it)`);
    const random = seededRandom(seed);
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const store = memoryStore();
    /** The host's database: the position as the last execution start wrote it. */
    let saved: string | undefined;
    const books = new Map<string, { status: Status; id: number; run: number }>();
    const done: { id: number; run: number }[] = [];
    const stops: Stop[] = [];
    const emitted: number[] = [];
    let run = 0;
    /**
     * The host's database: one write at a time, in the order asked, each taking up to `dbMs`. A
     * kill loses the writes not made yet (and what the process held in memory).
     */
    const dbMs = 5;
    let writes: Promise<void> = Promise.resolve();
    const write = (of: number, apply: () => void): void => {
      writes = writes.then(async () => {
        if (of !== run) return;
        await pause(random() * dbMs);
        if (of === run) apply();
      });
    };

    const start = (thisRun: number): Subscription => {
      const c = client(optionsFor(sim, { form: 'extended' }));
      store.value = saved === undefined ? undefined : JSON.parse(saved);
      return c.events.subscribe(
        'all',
        {
          onBatch: (batch: EventBatch) => {
            // A run that was killed starts nothing more (its process is gone).
            if (thisRun !== run) return new Promise<void>(() => {});
            const id = batch.events[0]?.id as number;
            const key = batch.attempt === 1 ? batch.key : `${batch.key}:attempt${batch.attempt}`;
            const alive = () => thisRun === run;
            return new Promise<void>((resolve) => {
              // The emit: n8n saves the static data (without waiting), then writes the execution;
              // its database takes them in turn, and serializes the static data when it gets to it.
              write(thisRun, () => {
                saved = JSON.stringify(store.value);
              });
              write(thisRun, () => {
                if (books.has(key)) {
                  resolve(); // refused: that execution exists
                  return;
                }
                const execution = { status: 'new' as Status, id, run: thisRun };
                books.set(key, execution);
                setTimeout(() => {
                  if (!alive()) return;
                  write(thisRun, () => {
                    execution.status = 'running';
                    setTimeout(() => {
                      if (!alive()) return;
                      done.push({ id, run: thisRun });
                      setTimeout(() => {
                        if (!alive()) return;
                        write(thisRun, () => {
                          execution.status = 'success';
                          resolve();
                        });
                      }, random() * 60);
                    }, random() * 400);
                  });
                }, random() * 60);
              });
            });
          },
        },
        {
          position: { store, resume: true, unfinished: thisRun === 0 ? 'record' : 'rerun' },
          batch: { size: 1, waitMs: 1 },
          maxInFlight: 20,
          positionSaveMs: 1_000,
          ack: { deadlineMs: 86_400_000, attempts: 4, onFailure: 'retry', onLate: 'release' },
        },
      );
    };

    let sub = start(0);
    // A first start is live from its start second: the stream begins once it is past it.
    await until(() => sub.state === 'open', 'the first run open');
    await pause(1_100);
    let streaming = true;
    const stream = (async () => {
      while (streaming) {
        for (const event of await sim.control.emit(1, { latenessMs: 0 })) emitted.push(event.id as number);
        await pause(20 + random() * 40);
      }
    })();

    const kills = Number(process.env.CRASH_KILLS ?? 12);
    for (let cycle = 1; cycle <= kills; cycle++) {
      await until(() => sub.state === 'open', `run ${run} open`);
      // Every stop hits executions in flight.
      await pause(200 + random() * 1_200);
      await until(
        () => [...books.values()].some((e) => e.run === run && e.status !== 'success'),
        'an execution in flight',
      );
      // The kill: nothing of this run counts from here on.
      run = cycle;
      const unfinished = new Set<number>();
      for (const [key, execution] of books) {
        if (execution.status === 'new') books.delete(key);
        else if (execution.status === 'running') {
          execution.status = 'crashed';
          unfinished.add(execution.id);
        }
      }
      const position = (saved === undefined ? undefined : JSON.parse(saved)) as StoredPosition | undefined;
      stops.push({
        run: cycle,
        unfinished,
        recorded: new Set(Object.keys(position?.unfinished ?? {}).map(Number)),
      });
      await sub.close();
      sub = start(cycle);
    }
    streaming = false;
    await stream;
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    emitted.push(sentinel?.id as number);
    await until(
      () =>
        emitted.every((id) => done.some((d) => d.id === id)) &&
        [...books.values()].every((e) => e.run !== run || e.status === 'success'),
      'every event done, nothing of the last run in flight',
      60_000,
      () => done.length,
    ).catch((error: unknown) => {
      const missing = emitted.filter((id) => !done.some((d) => d.id === id));
      const about = missing.slice(0, 5).map((id) => ({
        id,
        executions: [...books]
          .filter(([, e]) => e.id === id)
          .map(([key, e]) => `${key} ${e.status} run ${e.run}`),
        recorded: stops.filter((s) => s.recorded.has(id)).map((s) => s.run),
        unfinishedAt: stops.filter((s) => s.unfinished.has(id)).map((s) => s.run),
      }));
      const inFlight = [...books].filter(([, e]) => e.run === run && e.status !== 'success');
      throw new Error(
        `${String(error)}: not done ${missing.length} (${JSON.stringify(about)}); last run in flight ${JSON.stringify(inFlight)}; state ${sub.state}`,
      );
    });
    await sub.close();

    // Judged as the n8n e2e judges its crash loop: each repeat needs a stop between the two runs
    // that left the event unfinished or on the record, and is counted for the first such stop.
    const runsOf = new Map<number, number[]>();
    for (const d of done) runsOf.set(d.id, [...(runsOf.get(d.id) ?? []), d.run]);
    const unexplained: string[] = [];
    let repeats = 0;
    for (const [id, runs] of runsOf) {
      runs.sort((a, b) => a - b);
      for (let i = 1; i < runs.length; i++) {
        const [before, after] = [runs[i - 1] as number, runs[i] as number];
        repeats++;
        const stop = stops.find(
          (s) => s.run > before && s.run <= after && (s.unfinished.has(id) || s.recorded.has(id)),
        );
        if (!stop) unexplained.push(`${id} in runs ${before} and ${after}`);
      }
    }
    const lost = emitted.filter((id) => !runsOf.has(id));
    console.log(
      `host books crash test: ${kills} kills, ${emitted.length} events, ${repeats} repeats, ${stops.reduce((n, s) => n + s.unfinished.size, 0)} executions cut`,
    );
    expect(lost).toEqual([]);
    expect(unexplained).toEqual([]);
    expect(stops.every((s) => s.unfinished.size > 0 || s.recorded.size > 0)).toBe(true);
  }, 180_000);
});
