/**
 * P4: time to read 100,000 history events with core's historyAll against a naive sequential
 * undici page loop with the same page size (the form's maximum), both forms, simulator in its
 * own process. Each round times the two back to back, the order alternating.
 *
 * On loopback a page costs no wait at all, so those rows measure the two processes' CPU (the
 * single-threaded simulator's most of all) and how well the reader keeps the simulator busy, with
 * core's default paging (one page at a time, ended by an empty page): core must be no slower than
 * the loop, in pages of 100 and of 10,000 (see LOOPBACK_TARGET). Reading
 * ahead is judged over network round trips of 5, 20 and 50 ms (the simulator answers every
 * request that late, its delayResponses control): core with `concurrency: 4`, the option a user
 * sets for a slow link.
 * What a row judges is what the round trips added to the read: its time minus the same reader's
 * time for the same events over loopback in the same run (the CPU each page costs, client and
 * service, which is judged on its own: the loopback row, against the naive loop). That must
 * stay within 1.3× the round-trip floor no reader with 4 pages in flight can beat,
 * pages × round trip ÷ 4. The reader's own time is taken out of what is judged, never added to
 * the target: a slower reader cannot loosen its own bound, and its loopback row goes red.
 */
import { now } from './lib/clock.ts';
import type { CpuProfiler } from './lib/cpu-profile.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { type HistoryForm, PAGE_SIZE, readNaively, readWithCore } from './lib/history-readers.ts';

/**
 * Pages core requests at once in the round-trip rows. Its default is 1 (a read costs its pages plus
 * one empty page, whatever the page sizes); reading ahead is the opt-in for slow links.
 */
const PAGES_IN_FLIGHT = 4;

/**
 * Loopback with 4 pages in flight against the naive loop on the same events: core normalizes
 * every event and the loop does not, and both wait on one single-threaded simulator.
 */
const LOOPBACK_RATIO = 1.3;

/**
 * What the two loopback rows with core's defaults must stay within, in either form: the loop's own
 * time. The loop parses each page before it asks for the next; core asks on the page's counted
 * rows, and parses and normalizes while the simulator builds the next page (their work shares the
 * two cores with it, and the last page's is not hidden).
 */
const LOOPBACK_TARGET = 1.0;

import { pairedRuns } from './lib/paired-runs.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { median, round } from './lib/stats.ts';

interface ReadRun {
  seconds: number;
  /** CPU seconds of this process and of the simulator's during the read. */
  clientCpu: number;
  simulatorCpu: number;
}

async function timed(sim: SimulatorProcess, events: number, read: () => Promise<number>): Promise<ReadRun> {
  const simulatorBefore = await sim.cpuMs();
  const cpuBefore = process.cpuUsage();
  const started = now();
  const count = await read();
  const seconds = (now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const simulatorCpu = ((await sim.cpuMs()) - simulatorBefore) / 1000;
  if (count !== events) throw new Error(`P4: read ${count} of ${events} history events`);
  return { seconds, clientCpu: (cpu.user + cpu.system) / 1e6, simulatorCpu };
}

const cpuSeconds = (runs: ReadRun[], key: 'clientCpu' | 'simulatorCpu') =>
  round(median(runs.map((r) => r[key])), 2);

/** Warm-up, then `runs` paired rounds (order alternating) of core and the naive loop. */
async function pairedRounds(
  sim: SimulatorProcess,
  form: HistoryForm,
  events: number,
  runs: number,
  warmUpEvents: number,
  concurrency?: number,
  profiler?: CpuProfiler,
): Promise<{ coreRuns: ReadRun[]; naiveRuns: ReadRun[] }> {
  // Under the profiler, only the measured reads (not the warm-up), one file per read and reader.
  const measured = <T>(name: string, part: () => Promise<T>) =>
    profiler ? profiler.around(`p4-${form}-${name}`, part) : part();
  const core = () =>
    timed(sim, events, () =>
      measured('core', () => readWithCore(sim.addresses, form, Number.POSITIVE_INFINITY, concurrency)),
    );
  const naive = () => timed(sim, events, () => measured('naive', () => readNaively(sim.addresses, form)));
  await readWithCore(sim.addresses, form, warmUpEvents, concurrency);
  await readNaively(sim.addresses, form, warmUpEvents);
  // Core goes first in even pairs, as before: it is the "baseline" slot of pairedRuns.
  const { baseline: coreRuns, subject: naiveRuns } = await pairedRuns(runs, core, naive);
  return { coreRuns, naiveRuns };
}

function figure(
  id: string,
  scenario: string,
  form: HistoryForm,
  events: number,
  { coreRuns, naiveRuns }: { coreRuns: ReadRun[]; naiveRuns: ReadRun[] },
  extra: Record<string, unknown> = {},
  target: Parameters<typeof makeFigure>[0]['target'] = { kind: 'report' },
): Figure {
  return makeFigure({
    id,
    scenario,
    unit: 's',
    digits: 3,
    runs: coreRuns.map((r) => r.seconds),
    baseline: { name: 'naive sequential undici page loop', runs: naiveRuns.map((r) => r.seconds) },
    target,
    details: {
      events,
      pageSize: PAGE_SIZE[form],
      ...extra,
      // The simulator is one thread: its CPU time bounds what any client can reach.
      clientCpuSeconds: cpuSeconds(coreRuns, 'clientCpu'),
      simulatorCpuSeconds: cpuSeconds(coreRuns, 'simulatorCpu'),
      baselineClientCpuSeconds: cpuSeconds(naiveRuns, 'clientCpu'),
      baselineSimulatorCpuSeconds: cpuSeconds(naiveRuns, 'simulatorCpu'),
    },
  });
}

export async function p4HistoryPaging({
  events,
  runs,
  rttsMs = [5, 20, 50],
  rttEvents = 20_000,
  profiler,
}: {
  events: number;
  runs: number;
  /** Round trips of the network rows (ms). */
  rttsMs?: number[];
  /** Events of the network rows: at `rttMs` per page the naive loop takes (events / 100) round trips. */
  rttEvents?: number;
  /** `--cpu-prof`: profiles the measured reads of the two loopback rows (P4-extended, P4-basic). */
  profiler?: CpuProfiler | undefined;
}): Promise<Figure[]> {
  const figures: Figure[] = [];
  const sim = await SimulatorProcess.start({ form: 'both', historySize: events });
  try {
    for (const form of ['extended', 'basic'] as HistoryForm[]) {
      // Warm-up: the first 10,000 events through each reader.
      const rounds = await pairedRounds(sim, form, events, runs, 10_000, undefined, profiler);
      figures.push(
        figure(
          `P4-${form}`,
          `history ${events.toLocaleString('en')} events, historyAll, ${form} (pages of ${PAGE_SIZE[form].toLocaleString('en')})`,
          form,
          events,
          rounds,
          {},
          { kind: 'ratio-at-most', threshold: LOOPBACK_TARGET },
        ),
      );
    }
  } finally {
    await sim.stop();
  }
  // Extended only: its pages of 100 make the round trips count (basic reads 100,000 events in
  // 10 pages, where a round trip is noise next to the page's own work).
  const form: HistoryForm = 'extended';
  // The same reader over loopback, same events: what each page costs in CPU, which no round trip
  // hides. The target is 1.3x the larger of it and the round-trip floor.
  const loopback = await SimulatorProcess.start({ form: 'both', historySize: rttEvents });
  let loopbackSeconds: number;
  let naiveLoopbackSeconds: number;
  try {
    const rounds = await pairedRounds(loopback, form, rttEvents, runs, 2_000, PAGES_IN_FLIGHT);
    loopbackSeconds = median(rounds.coreRuns.map((r) => r.seconds));
    naiveLoopbackSeconds = median(rounds.naiveRuns.map((r) => r.seconds));
    // What the round-trip rows take out: judged here, against the naive loop on the same events.
    figures.push(
      figure(
        `P4-${form}-loopback-c${PAGES_IN_FLIGHT}`,
        `history ${rttEvents.toLocaleString('en')} events, loopback, concurrency ${PAGES_IN_FLIGHT} (what the round-trip rows take out)`,
        form,
        rttEvents,
        rounds,
        { pagesInFlight: PAGES_IN_FLIGHT },
        { kind: 'ratio-at-most', threshold: LOOPBACK_RATIO },
      ),
    );
  } finally {
    await loopback.stop();
  }
  for (const rttMs of rttsMs) {
    const delayed = await SimulatorProcess.start({ form: 'both', historySize: rttEvents });
    try {
      await delayed.call('delayResponses', rttMs);
      const rounds = await pairedRounds(delayed, form, rttEvents, runs, 2_000, PAGES_IN_FLIGHT);
      // The last, short page is a round trip too.
      const pages = Math.ceil(rttEvents / PAGE_SIZE[form]) + 1;
      // No reader with PAGES_IN_FLIGHT pages in flight waits less on the wire than this.
      const floorSeconds = (pages * rttMs) / PAGES_IN_FLIGHT / 1000;
      // Judged: what the round trips added to each reader's loopback time in this run.
      const added = (list: ReadRun[], own: number) => list.map((r) => ({ ...r, seconds: r.seconds - own }));
      figures.push(
        figure(
          `P4-${form}-rtt${rttMs}`,
          `history ${rttEvents.toLocaleString('en')} events, ${rttMs} ms round trip, concurrency ${PAGES_IN_FLIGHT}: time added to loopback (floor ${round(floorSeconds, 3)} s)`,
          form,
          rttEvents,
          {
            coreRuns: added(rounds.coreRuns, loopbackSeconds),
            naiveRuns: added(rounds.naiveRuns, naiveLoopbackSeconds),
          },
          {
            roundTripMs: rttMs,
            pages,
            pagesInFlight: PAGES_IN_FLIGHT,
            floorSeconds: round(floorSeconds, 3),
            loopbackSeconds: round(loopbackSeconds, 3),
            readSeconds: round(median(rounds.coreRuns.map((r) => r.seconds)), 3),
            baselineLoopbackSeconds: round(naiveLoopbackSeconds, 3),
          },
          { kind: 'value-below', threshold: round(floorSeconds * 1.3, 3) },
        ),
      );
    } finally {
      await delayed.stop();
    }
  }
  return figures;
}
