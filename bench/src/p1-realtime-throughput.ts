/**
 * P1: events/s of core's subscription (normalization and dedupe on) against a raw `ws` client
 * doing JSON.parse only, on the same simulator stream (simulator in its own process). A third
 * client, the raw one calling core's `normalizeEvent` on every frame, is the floor: what parsing
 * and normalizing cost without anything else core does (admission, the delivery queue, the
 * position). The three run back to back in every round, the order alternating.
 */

import { type BurstResult, burst, perCpuSecondFigure, startOfNextSecond, warmUp } from './lib/burst.ts';
import { until } from './lib/clock.ts';
import { CoreClient } from './lib/core-client.ts';
import type { CpuProfiler } from './lib/cpu-profile.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { alternatingRuns } from './lib/paired-runs.ts';
import { RawClient } from './lib/raw-client.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { median, round } from './lib/stats.ts';

export interface P1Options {
  events: number;
  runs: number;
  /** `--cpu-prof`: profiles the measured bursts of each client (p1-core-N, p1-raw-N). */
  profiler?: CpuProfiler | undefined;
}

/** The burst, under the profiler when one is given. */
function measured(name: string, profiler: CpuProfiler | undefined, run: () => Promise<BurstResult>) {
  return profiler ? profiler.around(name, run) : run();
}

async function rawRound(
  sim: SimulatorProcess,
  events: number,
  profiler?: CpuProfiler,
  normalize = false,
): Promise<BurstResult> {
  await startOfNextSecond();
  const raw = await RawClient.connect(sim.realtimeUrl(), undefined, normalize);
  try {
    await warmUp(sim, raw.counter);
    return await measured(normalize ? 'p1-floor' : 'p1-raw', profiler, () => burst(sim, raw.counter, events));
  } finally {
    await raw.close();
  }
}

async function coreRound(
  sim: SimulatorProcess,
  events: number,
  profiler?: CpuProfiler,
): Promise<BurstResult> {
  await startOfNextSecond();
  const core = await CoreClient.subscribe(sim.addresses);
  try {
    await warmUp(sim, core.counter);
    // A fresh start reads its first second from history again once historyLagMs has passed; the
    // warm-up's events it finds there are duplicates by design (dropped, counted). The burst is
    // measured after that read-back, as the stream it is, and must add no duplicate of its own.
    await until(() => core.subscription.stats.readingBack === 0, 'the fresh start read back', 30_000);
    const before = core.subscription.stats;
    const result = await measured('p1-core', profiler, () => burst(sim, core.counter, events));
    const stats = core.subscription.stats;
    const added = {
      duplicatesDropped: stats.duplicatesDropped - before.duplicatesDropped,
      malformed: stats.malformed - before.malformed,
      dropped: stats.dropped - before.dropped,
    };
    if (added.duplicatesDropped !== 0 || added.malformed !== 0 || added.dropped !== 0) {
      throw new Error(
        `P1: the subscription did not deliver the burst cleanly: ${JSON.stringify(added)} (${JSON.stringify(stats)})`,
      );
    }
    return result;
  } finally {
    await core.close();
  }
}

export async function p1RealtimeThroughput({ events, runs, profiler }: P1Options): Promise<Figure[]> {
  const sim = await SimulatorProcess.start({ form: 'extended' });
  try {
    // Three unmeasured rounds of each, as large as the measured ones, warm the JIT of both paths
    // and the simulator and grow this process's heap to what a burst needs. V8 doubled the new
    // space (16 to 32 MB, ~5,000 page faults) about six bursts in: with one such pair first, that
    // landed in the second measured round, a core one in four runs of four (0.56-0.61 of raw per
    // CPU-second).
    for (let pair = 0; pair < 3; pair++) {
      await rawRound(sim, events);
      await rawRound(sim, events, undefined, true);
      await coreRound(sim, events);
    }
    // Raw and core back to back, each first in every other run, as P1 paired them before the
    // floor came; the floor next to core, after it and then before it.
    const { raw, core, floor } = await alternatingRuns(runs, {
      raw: () => rawRound(sim, events, profiler),
      core: () => coreRound(sim, events, profiler),
      floor: () => rawRound(sim, events, profiler, true),
    });
    const figure = makeFigure({
      id: 'P1',
      scenario: 'realtime throughput, core subscription',
      unit: 'events/s',
      digits: 0,
      runs: core.map((r) => r.eventsPerSecond),
      baseline: { name: 'raw ws + JSON.parse', runs: raw.map((r) => r.eventsPerSecond) },
      target: { kind: 'ratio-at-least', threshold: 0.95 },
      details: {
        eventsPerRun: events,
        clientCpuMicrosPerEvent: round(median(core.map((r) => r.clientCpuMicros)), 2),
        baselineClientCpuMicrosPerEvent: round(median(raw.map((r) => r.clientCpuMicros)), 2),
        floorClientCpuMicrosPerEvent: round(median(floor.map((r) => r.clientCpuMicros)), 2),
        simulatorCpuMicrosPerEvent: round(
          median([...core, ...raw, ...floor].map((r) => r.simulatorCpuMicros)),
          2,
        ),
      },
    });
    // The same rounds by CPU time: what each client costs, steadier than wall-clock rates when
    // other work shares the cores (and when the simulator, not the client, sets the pace).
    const cpu = perCpuSecondFigure({
      id: 'P1-cpu',
      scenario: 'realtime, core subscription, per client CPU-second',
      runs: core,
      baseline: { name: 'raw ws + JSON.parse', runs: raw },
      target: { kind: 'ratio-at-least', threshold: 0.8 },
    });
    // What normalizing alone costs, against the same raw client: the most P1-cpu could reach.
    const floorCpu = perCpuSecondFigure({
      id: 'P1-floor',
      scenario: 'realtime, raw ws + JSON.parse + normalizeEvent, per client CPU-second',
      runs: floor,
      baseline: { name: 'raw ws + JSON.parse', runs: raw },
      target: { kind: 'report' },
    });
    // Everything core adds to parsing and normalizing a live event: admission, the queue, the
    // hand-over and the position's books. The issue's "parse, normalize, admit and deliver, and
    // nothing more", as a bound: at most a tenth of the floor's cost.
    const admitCpu = perCpuSecondFigure({
      id: 'P1-admit',
      scenario: 'realtime, core subscription against parse + normalize, per client CPU-second',
      runs: core,
      baseline: { name: 'raw ws + JSON.parse + normalizeEvent', runs: floor },
      target: { kind: 'ratio-at-least', threshold: 0.9 },
    });
    return [figure, cpu, floorCpu, admitCpu];
  } finally {
    await sim.stop();
  }
}
