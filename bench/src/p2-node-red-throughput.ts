/**
 * P2: events/s through Node-RED: our `observation events` node (all tasks, no filters) into a
 * counting node, against Node-RED's own `websocket in` (client to the same realtime URL) →
 * `json` → the same counting node, in the same embedded runtime (its own process) on the same
 * simulator stream (another process). Only one of the two flows is deployed at a time; each
 * round deploys and measures both, the order alternating.
 *
 * P2-done: the events node "handled when the flow is done" (a `complete` node returns each message
 * the counter finished, default In flight 10) against the same node "when sent", paired the same
 * way: what acknowledging through the flow costs. Reported, not judged.
 */
import type { FlowVariant } from './children/node-red-runtime.ts';
import { type BurstResult, burst, perCpuSecond, startOfNextSecond, warmUp } from './lib/burst.ts';
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
    const cpu = makeFigure({
      id: 'P2-cpu',
      scenario: 'Node-RED events node, per Node-RED CPU-second',
      unit: 'events/CPU-s',
      digits: 0,
      runs: perCpuSecond(ours),
      baseline: { name: 'websocket in → json → counter', runs: perCpuSecond(builtIn) },
      target: { kind: 'report' },
    });
    await measure('observation-done', events / 5);
    const { baseline: sent, subject: done } = await pairedRuns(
      Math.ceil(runs / 2),
      () => measure('observation', events),
      () => measure('observation-done', events),
    );
    const acknowledged = makeFigure({
      id: 'P2-done',
      scenario: 'Node-RED events node, handled when the flow is done (complete node back) → counter',
      unit: 'events/s',
      digits: 0,
      runs: done.map((r) => r.eventsPerSecond),
      baseline: { name: 'the same node, handled when sent', runs: sent.map((r) => r.eventsPerSecond) },
      target: { kind: 'report' },
      details: {
        eventsPerRun: events,
        nodeRedCpuMicrosPerEvent: round(median(done.map((r) => r.clientCpuMicros)), 2),
        baselineNodeRedCpuMicrosPerEvent: round(median(sent.map((r) => r.clientCpuMicros)), 2),
      },
    });
    return [figure, cpu, acknowledged];
  } finally {
    await red.stop();
    await sim.stop();
  }
}
