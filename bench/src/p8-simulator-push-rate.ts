/**
 * P8: how fast the simulator pushes realistic events over ONE socket (its own process, a raw
 * `ws` client counting here), so it is never the bottleneck of the other figures. Also records
 * the simulator's CPU time per event, which drifts far less than wall-clock rates on a shared
 * machine.
 */
import { type BurstResult, burst, warmUp } from './lib/burst.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { RawClient } from './lib/raw-client.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { median, round } from './lib/stats.ts';

export async function p8SimulatorPushRate({
  events,
  runs,
}: {
  events: number;
  runs: number;
}): Promise<Figure> {
  const sim = await SimulatorProcess.start({ form: 'extended' });
  const raw = await RawClient.connect(sim.realtimeUrl());
  try {
    await warmUp(sim, raw.counter, 20_000);
    const results: BurstResult[] = [];
    for (let run = 0; run < runs; run++) results.push(await burst(sim, raw.counter, events));
    const simulatorCpu = median(results.map((r) => r.simulatorCpuMicros));
    return makeFigure({
      id: 'P8',
      scenario: 'simulator push rate over one socket',
      unit: 'events/s',
      digits: 0,
      runs: results.map((r) => r.eventsPerSecond),
      target: { kind: 'value-at-least', threshold: 50_000 },
      details: {
        eventsPerRun: events,
        simulatorCpuMicrosPerEvent: round(simulatorCpu, 2),
        simulatorEventsPerCpuSecond: Math.round(1e6 / simulatorCpu),
        clientCpuMicrosPerEvent: round(median(results.map((r) => r.clientCpuMicros)), 2),
      },
    });
  } finally {
    await raw.close();
    await sim.stop();
  }
}
