/**
 * P9: events/s the Observation Trigger hands to n8n's engine (TriggerContext.emit, one item per
 * event, as an active workflow gets them), with the built package loaded by n8n-core in its own
 * process. Reported, not judged; a raw `ws` + JSON.parse client in the same process is measured
 * in the same rounds for scale.
 */
import { type BurstResult, burst, perCpuSecond, warmUp } from './lib/burst.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { N8nProcess } from './lib/n8n-process.ts';
import { pairedRuns } from './lib/paired-runs.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { median, round } from './lib/stats.ts';

export async function p9N8nTriggerThroughput({
  events,
  runs,
}: {
  events: number;
  runs: number;
}): Promise<Figure[]> {
  const sim = await SimulatorProcess.start({ form: 'extended' });
  const n8n = await N8nProcess.start();
  const measure = async (variant: 'trigger' | 'raw', count: number): Promise<BurstResult> => {
    await n8n.activate(variant, sim.addresses);
    try {
      await warmUp(sim, n8n.counter);
      return await burst(sim, n8n.counter, count);
    } finally {
      await n8n.deactivate();
    }
  };
  try {
    await measure('raw', events / 5);
    await measure('trigger', events / 5);
    const { baseline: raw, subject: trigger } = await pairedRuns(
      runs,
      () => measure('raw', events),
      () => measure('trigger', events),
    );
    const figure = makeFigure({
      id: 'P9',
      scenario: "n8n trigger items emitted through n8n's engine",
      unit: 'events/s',
      digits: 0,
      runs: trigger.map((r) => r.eventsPerSecond),
      baseline: { name: 'raw ws + JSON.parse, same process', runs: raw.map((r) => r.eventsPerSecond) },
      target: { kind: 'report' },
      details: {
        eventsPerRun: events,
        cpuMicrosPerEvent: round(median(trigger.map((r) => r.clientCpuMicros)), 2),
        baselineCpuMicrosPerEvent: round(median(raw.map((r) => r.clientCpuMicros)), 2),
      },
    });
    const cpu = makeFigure({
      id: 'P9-cpu',
      scenario: 'n8n trigger, per CPU-second of the n8n process',
      unit: 'events/CPU-s',
      digits: 0,
      runs: perCpuSecond(trigger),
      baseline: { name: 'raw ws + JSON.parse, same process', runs: perCpuSecond(raw) },
      target: { kind: 'report' },
    });
    return [figure, cpu];
  } finally {
    await n8n.stop();
    await sim.stop();
  }
}
