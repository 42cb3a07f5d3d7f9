import { describe, expect, it } from 'vitest';
import { createUndiciTransport, type HttpTransport } from '../src/index.js';
import { recordIdOf } from '../src/realtime/__tests__/recorder.js';
import { client, optionsFor, simulator, waiter } from './helpers.js';

/**
 * One socket for several tasks (the extended form), whose history the service's task filter
 * gives one task at a time. A catch-up window reads those tasks at once: read one after another,
 * a restart over busy seconds of 5 tasks waited for every task's round trips in turn, and a burst
 * of 500 events took 35 s of history requests before the first event was delivered.
 */

const until = waiter(60_000);

interface HistoryRequest {
  task: string | null;
  /** The window: its start and end (the same for every task it reads). */
  window: string;
  sentMs: number;
  answeredMs: number | undefined;
}

/** A real transport that notes when each history request was sent and when its body was read. */
function timedHistory(): { transport: HttpTransport; requests: HistoryRequest[] } {
  const real = createUndiciTransport();
  const requests: HistoryRequest[] = [];
  const transport: HttpTransport = {
    async request(req) {
      const url = new URL(req.url);
      if (!url.pathname.endsWith('/events/history')) return real.request(req);
      const query = url.searchParams;
      const entry: HistoryRequest = {
        task: query.get('task_id'),
        window: `${query.get('start_time')}..${query.get('end_time')}`,
        sentMs: performance.now(),
        answeredMs: undefined,
      };
      requests.push(entry);
      const response = await real.request(req);
      const answered = <T>(body: Promise<T>) =>
        body.finally(() => {
          entry.answeredMs = performance.now();
        });
      return { ...response, text: () => answered(response.text()), bytes: () => answered(response.bytes()) };
    },
    close: () => real.close?.() ?? Promise.resolve(),
  };
  return { transport, requests };
}

describe('a catch-up over several tasks', () => {
  it('reads the history of its tasks at once, and delivers every event once', async () => {
    // Every answer takes 40 ms, as across a WAN.
    const sim = await simulator({ historySize: 0, responseLatencyMs: { min: 40, max: 40 } });
    const { transport, requests } = timedHistory();
    const c = client(optionsFor(sim, { form: 'extended', transport }));
    const taskIds = sim.world.tasks.slice(0, 4).map((task) => task.id);
    const received: number[] = [];
    const sub = c.events.subscribe(
      taskIds,
      { onEvent: (event) => void received.push(recordIdOf(event)) },
      { allowedLatenessMs: 3_000, backoff: { baseMs: 2, maxMs: 20 } },
    );
    await until(() => sub.state === 'open', 'open');
    const live = (await sim.control.emit(20, { taskIds, latenessMs: 0 })).map((event) => event.id);
    await until(() => live.every((id) => received.includes(id)), 'the live events');
    // Down for a moment: what is published meanwhile only a catch-up finds.
    const before = requests.length;
    sim.control.refuseConnections(300);
    sim.control.dropConnections();
    const missed = (await sim.control.emit(40, { taskIds, latenessMs: 0 })).map((event) => event.id);
    await until(() => missed.every((id) => received.includes(id)), 'the missed events');
    const [sentinel] = await sim.control.emit(1, { taskIds, latenessMs: 0 });
    await until(
      () => received.includes(sentinel?.id as number) && sub.stats.readingBack === 0,
      'the sentinel',
    );
    await sub.close();

    expect(new Set(received).size).toBe(received.length);
    expect([...received].sort((a, b) => a - b)).toEqual(
      [...live, ...missed, sentinel?.id as number].sort((a, b) => a - b),
    );
    // The evidence of reading at once: requests of one window for two tasks in flight together.
    const catchUp = requests.slice(before);
    const together = catchUp.some((a) =>
      catchUp.some(
        (b) =>
          a.window === b.window &&
          a.task !== b.task &&
          b.sentMs >= a.sentMs &&
          b.sentMs < (a.answeredMs ?? Number.POSITIVE_INFINITY),
      ),
    );
    expect(catchUp.length).toBeGreaterThanOrEqual(taskIds.length);
    expect(together).toBe(true);
  });
});
