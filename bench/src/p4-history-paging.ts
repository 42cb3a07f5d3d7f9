/**
 * P4: time to read 100,000 history events with core's historyAll against a naive sequential
 * undici page loop with the same page size (the form's maximum), both forms, simulator in its
 * own process. Each round times the two back to back, the order alternating.
 */
import { now } from './lib/clock.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { type HistoryForm, PAGE_SIZE, readNaively, readWithCore } from './lib/history-readers.ts';
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

export async function p4HistoryPaging({ events, runs }: { events: number; runs: number }): Promise<Figure[]> {
  const sim = await SimulatorProcess.start({ form: 'both', historySize: events });
  const figures: Figure[] = [];
  try {
    for (const form of ['extended', 'basic'] as HistoryForm[]) {
      const core = () => timed(sim, events, () => readWithCore(sim.addresses, form));
      const naive = () => timed(sim, events, () => readNaively(sim.addresses, form));
      // Warm-up: the first 10,000 events through each reader.
      await readWithCore(sim.addresses, form, 10_000);
      await readNaively(sim.addresses, form, 10_000);
      const coreRuns: ReadRun[] = [];
      const naiveRuns: ReadRun[] = [];
      for (let run = 0; run < runs; run++) {
        if (run % 2 === 0) {
          coreRuns.push(await core());
          naiveRuns.push(await naive());
        } else {
          naiveRuns.push(await naive());
          coreRuns.push(await core());
        }
      }
      figures.push(
        makeFigure({
          id: `P4-${form}`,
          scenario: `history ${events.toLocaleString('en')} events, historyAll, ${form} (pages of ${PAGE_SIZE[form].toLocaleString('en')})`,
          unit: 's',
          digits: 3,
          runs: coreRuns.map((r) => r.seconds),
          baseline: { name: 'naive sequential undici page loop', runs: naiveRuns.map((r) => r.seconds) },
          target: { kind: 'ratio-at-most', threshold: 0.5 },
          details: {
            events,
            pageSize: PAGE_SIZE[form],
            // The simulator is one thread: its CPU time bounds what any client can reach.
            clientCpuSeconds: cpuSeconds(coreRuns, 'clientCpu'),
            simulatorCpuSeconds: cpuSeconds(coreRuns, 'simulatorCpu'),
            baselineClientCpuSeconds: cpuSeconds(naiveRuns, 'clientCpu'),
            baselineSimulatorCpuSeconds: cpuSeconds(naiveRuns, 'simulatorCpu'),
          },
        }),
      );
    }
  } finally {
    await sim.stop();
  }
  return figures;
}
