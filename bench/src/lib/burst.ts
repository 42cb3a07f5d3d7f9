import { now, sleep, until } from './clock.ts';
import { type Figure, type FigureInput, makeFigure } from './figure.ts';
import type { SimulatorProcess } from './simulator-process.ts';

/** A consumer under test, in this process or another: counts the events it has handled. */
export interface Counter {
  count(): Promise<number>;
  /** Zeroes the count; with `recordTimes` the consumer also keeps each event's id and handling time. */
  reset(recordTimes?: boolean): Promise<void>;
  /** Resolves once `count` events are handled (or after `timeoutMs`): how many, and when the last was. */
  waitFor(count: number, timeoutMs: number): Promise<{ received: number; lastAt: number }>;
  /** Resolves once the event with record id `id` is handled, when recording: true, or false after `timeoutMs`. */
  waitForId(id: number, timeoutMs: number): Promise<boolean>;
  /** Handling time (clock.now()) by record id, when recording. */
  times(): Promise<{ ids: (number | undefined)[]; times: number[] }>;
  /** CPU milliseconds used so far by the consumer's process. */
  cpuMs(): Promise<number>;
}

/** What the in-process clients (RawClient, CoreClient) keep. */
export interface LocalTally {
  received: number;
  lastAt: number;
  recordTimes: boolean;
  readonly ids: number[];
  readonly times: number[];
}

export function localCounter(tally: LocalTally): Counter {
  return {
    count: async () => tally.received,
    reset: async (recordTimes = false) => {
      tally.received = 0;
      tally.ids.length = 0;
      tally.times.length = 0;
      tally.recordTimes = recordTimes;
    },
    waitFor: async (count, timeoutMs) => {
      await until(() => tally.received >= count, `${count} events`, timeoutMs, 1).catch(() => undefined);
      return { received: tally.received, lastAt: tally.lastAt };
    },
    waitForId: async (id, timeoutMs) => {
      await until(() => tally.ids.includes(id), `event ${id}`, timeoutMs, 1).catch(() => undefined);
      return tally.ids.includes(id);
    },
    times: async () => ({ ids: [...tally.ids], times: [...tally.times] }),
    cpuMs: async () => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1000;
    },
  };
}

/**
 * Waits until a new second has begun. Call it before a consumer connects: a fresh core
 * subscription first reads from history the events already published in the second it starts in
 * (so a later catch-up does not deliver them), and right after a burst that second holds up to
 * 50,000 events of the round before. Serving them cost the simulator enough that the core's
 * burst after it came slower: per wall-clock second core ÷ raw was 0.873 that way and 1.083 from
 * a fresh second (12 interleaved pairs each, 2026-11-25), per client CPU-second 0.825 and 0.840.
 * A start on a busy service is P11's subject; each round here measures the stream. Baselines wait
 * too, so both sides of a ratio start alike.
 */
export async function startOfNextSecond(): Promise<void> {
  // A few ms past the boundary: every event of the round before is stamped in an earlier second.
  await sleep(1000 - (Date.now() % 1000) + 5);
}

/**
 * Streams a few thousand events through a freshly connected consumer (JIT, buffers, the first
 * frames after the upgrade), waits for a sentinel sent after them, then zeroes its count.
 */
export async function warmUp(sim: SimulatorProcess, consumer: Counter, events = 2_000): Promise<void> {
  // A consumer (Node-RED's counting node) may still hold the count of the one measured before it:
  // from zero, the first loop waits until this one is connected and receiving. Ids are recorded
  // so that the sentinel below is known by its id (every scenario that warms up streams the
  // extended form, whose events carry their record id).
  await consumer.reset(true);
  for (let round = 0; (await consumer.count()) === 0; round++) {
    if (round > 250) throw new Error('the consumer received no warm-up event');
    await sim.emit(20);
    await sleep(20);
  }
  await sim.emit(events);
  // Every warm-up event must be in before the reset, or a late one would be counted in the
  // measured burst. A count cannot tell: events of the loop above may still be on their way when
  // it stops (a batching consumer holds them up to its batch wait), and how many of the first
  // ones a consumer missed while connecting is unknown. A sentinel sent after them all arrives
  // after them (one socket, in order): wait for it by id.
  const { lastId: sentinel } = await sim.emit(1);
  if (sentinel === undefined) throw new Error('warm-up: the simulator emitted no sentinel');
  if (!(await consumer.waitForId(sentinel, 30_000))) {
    throw new Error(
      `warm-up: the sentinel (id ${sentinel}) did not arrive; ${await consumer.count()} events did`,
    );
  }
  await consumer.reset();
}

export interface BurstResult {
  eventsPerSecond: number;
  /** CPU time of the consumer's process per event, microseconds. */
  clientCpuMicros: number;
  /** CPU time of the simulator process per event, microseconds. */
  simulatorCpuMicros: number;
}

/**
 * Asks the simulator for `count` events at full speed and times them from the request to the
 * last one handled by the consumer. Fails unless exactly `count` arrive.
 */
export async function burst(sim: SimulatorProcess, consumer: Counter, count: number): Promise<BurstResult> {
  // Ids are kept (a push per event, on both sides of a ratio alike) so that a wrong count says
  // what came: a repeat, or an event from before the burst arriving late.
  await consumer.reset(true);
  const simCpuBefore = await sim.cpuMs();
  const cpuBefore = await consumer.cpuMs();
  const started = now();
  const { firstId } = await sim.emit(count);
  const { received, lastAt } = await consumer.waitFor(count, 120_000);
  if (received < count) throw new Error(`only ${received} of ${count} events arrived`);
  const seconds = (lastAt - started) / 1000;
  const cpu = (await consumer.cpuMs()) - cpuBefore;
  const simCpu = (await sim.cpuMs()) - simCpuBefore;
  // Nothing more (a duplicate) may arrive: a sentinel sent after the burst arrives after anything
  // the burst still had in the pipe, so the count at the sentinel is the whole story.
  await sim.emit(1);
  const after = await consumer.waitFor(count + 1, 30_000);
  if (after.received !== count + 1) {
    throw new Error(
      `expected ${count} events and the sentinel, the consumer got ${after.received}: ${await unexpected(consumer, firstId)}`,
    );
  }
  return {
    eventsPerSecond: count / seconds,
    clientCpuMicros: (cpu * 1000) / count,
    simulatorCpuMicros: (simCpu * 1000) / count,
  };
}

/** Events per CPU-second of the consumer's process: the client's own cost, whatever the load. */
function perCpuSecond(results: readonly BurstResult[]): number[] {
  return results.map((result) => 1e6 / result.clientCpuMicros);
}

/**
 * A figure of paired bursts in events per CPU-second of the consumer's process (`perCpuSecond`),
 * against the baseline's bursts: the realtime rows judged by CPU rather than wall clock.
 */
export function perCpuSecondFigure(
  input: Omit<FigureInput, 'unit' | 'digits' | 'runs' | 'baseline'> & {
    runs: readonly BurstResult[];
    baseline: { name: string; runs: readonly BurstResult[] };
  },
): Figure {
  return makeFigure({
    ...input,
    unit: 'events/CPU-s',
    digits: 0,
    runs: perCpuSecond(input.runs),
    baseline: { name: input.baseline.name, runs: perCpuSecond(input.baseline.runs) },
  });
}

/** What a burst's consumer got beyond the burst: events received twice, and events from before it. */
async function unexpected(consumer: Counter, firstId: number | undefined): Promise<string> {
  const { ids } = await consumer.times();
  const seen = new Set<number>();
  const twice: number[] = [];
  const before: number[] = [];
  for (const id of ids) {
    if (id === undefined) continue;
    if (seen.has(id)) twice.push(id);
    seen.add(id);
    if (firstId !== undefined && id < firstId) before.push(id);
  }
  const few = (list: number[]) => `${list.length}${list.length ? ` (${list.slice(0, 12).join(', ')})` : ''}`;
  return `received twice ${few(twice)}; from before the burst (its first id ${firstId}) ${few(before)}`;
}
