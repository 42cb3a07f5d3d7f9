/**
 * P2: events/s through Node-RED: our `observation events` node (all tasks, no filters) into a
 * counting node, against Node-RED's own `websocket in` (client to the same realtime URL) →
 * `json` → the same counting node, in the same embedded runtime (its own process) on the same
 * simulator stream (another process). Only one of the two flows is deployed at a time; each
 * round deploys and measures both, the order alternating.
 *
 * P2-done: the events node "handled when the flow is done" (the runtime's messaging hooks tell it
 * when the counter finished, default In flight 10) against the same node "when sent", paired the
 * same way: what waiting for the flow costs. Target: at least 0.8.
 *
 * P2-hooks: a flow without our nodes (the websocket flow) in a runtime that loaded our package and
 * runs an idle events node "when the flow is done" on another tab (its hooks are added only while
 * an event of it is out), against the same flow in a runtime that never loaded the package.
 * Target: at least 0.98.
 */
import type { FlowVariant } from './children/node-red-runtime.ts';
import { type BurstResult, burst, perCpuSecondFigure, startOfNextSecond, warmUp } from './lib/burst.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { NodeRedProcess } from './lib/node-red-process.ts';
import { pairedRuns } from './lib/paired-runs.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { median, round } from './lib/stats.ts';

export async function p2NodeRedThroughput({
  events,
  runs,
}: {
  events: number;
  runs: number;
}): Promise<Figure[]> {
  const sim = await SimulatorProcess.start({ form: 'extended' });
  const red = await NodeRedProcess.start();
  const measure = async (variant: FlowVariant, count: number): Promise<BurstResult> => {
    await startOfNextSecond();
    await red.deploy(variant, sim.addresses);
    await warmUp(sim, red.counter);
    const result = await burst(sim, red.counter, count);
    await red.deploy('none', sim.addresses);
    return result;
  };
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
    // Two fresh runtimes, one with the package and one without: the runtime that ran P2's bursts
    // carries their heap (a paired scratch run of the websocket flow, no hook in either, read 0.986
    // CPU per message against a fresh one), which is not what loading the package costs.
    const bare = await NodeRedProcess.start({ withPackage: false });
    const loaded = await NodeRedProcess.start();
    const measureOn = async (runtime: NodeRedProcess, variant: FlowVariant, count: number) => {
      await startOfNextSecond();
      await runtime.deploy(variant, sim.addresses);
      await warmUp(sim, runtime.counter);
      const result = await burst(sim, runtime.counter, count);
      await runtime.deploy('none', sim.addresses);
      return result;
    };
    let hooked: { baseline: BurstResult[]; subject: BurstResult[] };
    // A 2 % target needs more than P2's rounds on a shared machine: one round's ratio swung from
    // 0.78 to 1.48 in a four-round run, and the median of 7 rounds of 20,000 events (0.2 s each)
    // read anywhere from 0.83 to 0.99 on the same code. Longer bursts and two more rounds.
    const hooksEvents = events * 3;
    try {
      await measureOn(bare, 'websocket', events / 5);
      await measureOn(loaded, 'websocket-hooked', events / 5);
      hooked = await pairedRuns(
        runs + 2,
        () => measureOn(bare, 'websocket', hooksEvents),
        () => measureOn(loaded, 'websocket-hooked', hooksEvents),
      );
    } finally {
      await Promise.all([bare.stop(), loaded.stop()]);
    }
    const hooks = perCpuSecondFigure({
      id: 'P2-hooks',
      scenario:
        'Node-RED flow without our nodes (websocket in → json → counter), package loaded, idle events node "when the flow is done"',
      // What the package costs a flow is CPU: per Node-RED CPU-second. The wall-clock rate of one
      // round also carries the simulator's pace and the other process's turn on 2 cores (one
      // quiet run's rounds ranged 0.78-1.27, and its median 0.83 to 1.07 across runs, while CPU
      // per event stayed within 1 %).
      runs: hooked.subject,
      baseline: { name: 'the same flow, package not loaded', runs: hooked.baseline },
      target: { kind: 'ratio-at-least', threshold: 0.98 },
      details: {
        eventsPerRun: hooksEvents,
        eventsPerSecond: round(median(hooked.subject.map((r) => r.eventsPerSecond)), 0),
        baselineEventsPerSecond: round(median(hooked.baseline.map((r) => r.eventsPerSecond)), 0),
      },
    });
    await measure('observation-done', events / 5);
    const { baseline: sent, subject: done } = await pairedRuns(
      runs,
      () => measure('observation', events),
      () => measure('observation-done', events),
    );
    const acknowledged = makeFigure({
      id: 'P2-done',
      scenario: 'Node-RED events node, handled when the flow is done (runtime hooks) → counter',
      unit: 'events/s',
      digits: 0,
      runs: done.map((r) => r.eventsPerSecond),
      baseline: { name: 'the same node, handled when sent', runs: sent.map((r) => r.eventsPerSecond) },
      target: { kind: 'ratio-at-least', threshold: 0.8 },
      details: {
        eventsPerRun: events,
        nodeRedCpuMicrosPerEvent: round(median(done.map((r) => r.clientCpuMicros)), 2),
        baselineNodeRedCpuMicrosPerEvent: round(median(sent.map((r) => r.clientCpuMicros)), 2),
      },
    });
    return [figure, cpu, hooks, acknowledged];
  } finally {
    await red.stop();
    await sim.stop();
  }
}
