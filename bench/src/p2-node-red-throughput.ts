/**
 * P2: events/s through Node-RED: our `observation events` node (all tasks, no filters) into a
 * counting node, against Node-RED's own `websocket in` (client to the same realtime URL) →
 * `json` → the same counting node, in the same embedded runtime (its own process) on the same
 * simulator stream (another process). Only one of the two flows is deployed at a time; each
 * round deploys and measures both, the order alternating.
 *
 * P2-hooks (a scenario of its own): a flow without our nodes (the websocket flow) in a runtime
 * that loaded our package and runs an events node "when the flow is done" on another tab, holding
 * an event of a second simulator (so our messaging hooks are in the runtime for the whole burst:
 * they are added only while an event of ours is out, and the bench checks they were), against the
 * same flow in a runtime that never loaded the package.
 *
 * P2-done (a scenario of its own): the events node "handled when the flow is done" (the runtime's
 * messaging hooks tell it when the counter finished, default In flight 10) against the same node
 * "when sent", paired the same way: what waiting for the flow costs, per Node-RED CPU-second.
 */
import type { FlowVariant } from './children/node-red-runtime.ts';
import { type BurstResult, burst, perCpuSecondFigure, startOfNextSecond, warmUp } from './lib/burst.ts';
import { now, sleep } from './lib/clock.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { NodeRedProcess } from './lib/node-red-process.ts';
import { pairedRuns } from './lib/paired-runs.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { median, round } from './lib/stats.ts';

/** One measured round of a flow: deployed fresh in a new second, warmed up, a burst, undeployed. */
function rounds(red: NodeRedProcess, sim: SimulatorProcess) {
  return async (variant: FlowVariant, count: number): Promise<BurstResult> => {
    await startOfNextSecond();
    await red.deploy(variant, sim.addresses);
    await warmUp(sim, red.counter);
    const result = await burst(sim, red.counter, count);
    await red.deploy('none', sim.addresses);
    return result;
  };
}

export async function p2NodeRedThroughput({
  events,
  runs,
}: {
  events: number;
  runs: number;
}): Promise<Figure[]> {
  const sim = await SimulatorProcess.start({ form: 'extended' });
  const red = await NodeRedProcess.start();
  const measure = rounds(red, sim);
  try {
    await measure('websocket', events / 5);
    await measure('observation', events / 5);
    const { baseline: builtIn, subject: ours } = await pairedRuns(
      runs,
      () => measure('websocket', events),
      () => measure('observation', events),
    );
    const figure = makeFigure({
      id: 'P2',
      scenario: 'Node-RED observation events node → counter',
      unit: 'events/s',
      digits: 0,
      runs: ours.map((r) => r.eventsPerSecond),
      baseline: { name: 'websocket in → json → counter', runs: builtIn.map((r) => r.eventsPerSecond) },
      target: { kind: 'ratio-at-least', threshold: 1.0 },
      details: {
        eventsPerRun: events,
        nodeRedCpuMicrosPerEvent: round(median(ours.map((r) => r.clientCpuMicros)), 2),
        baselineNodeRedCpuMicrosPerEvent: round(median(builtIn.map((r) => r.clientCpuMicros)), 2),
        simulatorCpuMicrosPerEvent: round(median([...ours, ...builtIn].map((r) => r.simulatorCpuMicros)), 2),
      },
    });
    const cpu = perCpuSecondFigure({
      id: 'P2-cpu',
      scenario: 'Node-RED events node, per Node-RED CPU-second',
      runs: ours,
      baseline: { name: 'websocket in → json → counter', runs: builtIn },
      target: { kind: 'report' },
    });
    return [figure, cpu];
  } finally {
    await red.stop();
    await sim.stop();
  }
}

/**
 * Waits until our hooks are in the runtime, sending the held events node an event of its
 * simulator every 20 ms until one is out (the node's socket opens some time after the deploy).
 */
async function holdAnEvent(red: NodeRedProcess, idleSim: SimulatorProcess): Promise<void> {
  const started = now();
  while (!(await red.hooks()).present) {
    if (now() - started > 15_000) {
      throw new Error(
        'P2-hooks: our messaging hooks were never added (the events node holding an event got none in 15 s), so the row would measure a runtime without them',
      );
    }
    await idleSim.emit(1);
    await sleep(20);
  }
}

export async function p2Hooks({ events, runs }: { events: number; runs: number }): Promise<Figure[]> {
  const sim = await SimulatorProcess.start({ form: 'extended' });
  // The held events node's own simulator: what it sends that node is no part of the measured stream.
  const idleSim = await SimulatorProcess.start({ form: 'extended' });
  // Two fresh runtimes, one with the package and one without: a runtime that ran other bursts
  // carries their heap (a paired scratch run of the websocket flow, no hook in either, read 0.986
  // CPU per message against a fresh one), which is not what loading the package costs.
  const bare = await NodeRedProcess.start({ withPackage: false });
  const loaded = await NodeRedProcess.start();
  try {
    const measureBare = rounds(bare, sim);
    let checked = 0;
    const measureHooked = async (count: number): Promise<BurstResult> => {
      await startOfNextSecond();
      await loaded.deploy('websocket-hooked', sim.addresses, idleSim.addresses);
      await holdAnEvent(loaded, idleSim);
      await warmUp(sim, loaded.counter);
      const before = await loaded.hooks();
      const result = await burst(sim, loaded.counter, count);
      const after = await loaded.hooks();
      // In at both ends and never removed between: in the runtime for every message of the burst.
      if (!before.present || !after.present || after.removed !== before.removed) {
        throw new Error(
          `P2-hooks: our hooks were not in the runtime for the whole burst (before ${JSON.stringify(before)}, after ${JSON.stringify(after)})`,
        );
      }
      checked++;
      await loaded.deploy('none', sim.addresses);
      return result;
    };
    await measureBare('websocket', events / 5);
    await measureHooked(events / 5);
    const hooked = await pairedRuns(
      runs,
      () => measureBare('websocket', events),
      () => measureHooked(events),
    );
    return [
      perCpuSecondFigure({
        id: 'P2-hooks',
        scenario:
          'Node-RED flow without our nodes (websocket in → json → counter), package loaded, an events node "when the flow is done" holding an event (our hooks in)',
        // What the package costs a flow is CPU: per Node-RED CPU-second. The wall-clock rate of one
        // round also carries the simulator's pace and the other process's turn on 2 cores (one
        // quiet run's rounds ranged 0.78-1.27, and its median 0.83 to 1.07 across runs, while CPU
        // per event stayed within 1 %).
        runs: hooked.subject,
        baseline: { name: 'the same flow, package not loaded', runs: hooked.baseline },
        // Below every run measured with the hooks really in (0.919-1.042 on a loaded machine):
        // 0.98 sat inside that noise and went red in 1 of 3 runs. 0.85 still fails hooks that cost
        // a flow that does not use our nodes 15 % of its CPU per message (about 5 % measured).
        target: { kind: 'ratio-at-least', threshold: 0.85 },
        details: {
          eventsPerRun: events,
          // Measured bursts (warm-up round included) whose hooks were checked in from start to end.
          burstsWithHooksIn: checked,
          eventsPerSecond: round(median(hooked.subject.map((r) => r.eventsPerSecond)), 0),
          baselineEventsPerSecond: round(median(hooked.baseline.map((r) => r.eventsPerSecond)), 0),
        },
      }),
    ];
  } finally {
    await Promise.all([bare.stop(), loaded.stop(), idleSim.stop(), sim.stop()]);
  }
}

export async function p2Done({ events, runs }: { events: number; runs: number }): Promise<Figure[]> {
  const sim = await SimulatorProcess.start({ form: 'extended' });
  const red = await NodeRedProcess.start();
  const measure = rounds(red, sim);
  try {
    await measure('observation', events / 5);
    await measure('observation-done', events / 5);
    const { baseline: sent, subject: done } = await pairedRuns(
      runs,
      () => measure('observation', events),
      () => measure('observation-done', events),
    );
    // The judgement this row had until 2026-12-01 (events per wall-clock second, ≥ 0.8), kept in the
    // JSON: in 19 runs on a loaded machine its median read 0.59-1.13, red in 8 of them.
    const wallClock = done.map(
      (r, index) => r.eventsPerSecond / (sent[index] as BurstResult).eventsPerSecond,
    );
    return [
      perCpuSecondFigure({
        id: 'P2-done',
        scenario:
          'Node-RED events node, handled when the flow is done (runtime hooks) → counter, per Node-RED CPU-second',
        runs: done,
        baseline: { name: 'the same node, handled when sent', runs: sent },
        // Per CPU-second: what waiting for the flow costs is Node-RED's work per event; the wall-clock
        // rate also carries the simulator's pace and whose turn it is on 2 shared cores. Even so the
        // median read 0.717-1.100 in 15 runs at load 5-15 (bench/README.md), lower the heavier the
        // load: 0.65 sits below all of them and still fails "when the flow is done" costing more than
        // 1.5× the CPU per event of "when sent" (about 1.1× now).
        target: { kind: 'ratio-at-least', threshold: 0.65 },
        details: {
          eventsPerRun: events,
          wallClockRatio: round(median(wallClock), 3),
          perRoundWallClockRatios: wallClock.map((ratio) => round(ratio, 3)),
          eventsPerSecond: round(median(done.map((r) => r.eventsPerSecond)), 0),
          baselineEventsPerSecond: round(median(sent.map((r) => r.eventsPerSecond)), 0),
        },
      }),
    ];
  } finally {
    await red.stop();
    await sim.stop();
  }
}
