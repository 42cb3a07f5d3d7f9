/**
 * P9: events/s the Observation Trigger hands to n8n's engine (TriggerContext.emit, as an active
 * workflow gets them), with the built package loaded by n8n-core in its own process, for batch
 * sizes 1 (one execution per event, the default), 10 and 100 (one execution per batch). Reported
 * against a raw `ws` + JSON.parse client in the same process, for scale; batch 100 is judged
 * against batch 1 (batching must never cost throughput).
 */
import { type BurstResult, burst, perCpuSecondFigure, startOfNextSecond, warmUp } from './lib/burst.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { N8nProcess } from './lib/n8n-process.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { median, round } from './lib/stats.ts';

const batchSizes = [1, 10, 100] as const;
type Variant = 'raw' | (typeof batchSizes)[number];

export async function p9N8nTriggerThroughput({
  events,
  runs,
}: {
  events: number;
  runs: number;
}): Promise<Figure[]> {
  const sim = await SimulatorProcess.start({ form: 'extended' });
  const n8n = await N8nProcess.start();
  const measure = async (variant: Variant, count: number): Promise<BurstResult> => {
    await startOfNextSecond();
    if (variant === 'raw') await n8n.activate('raw', sim.addresses);
    else await n8n.activate('trigger', sim.addresses, variant);
    try {
      await warmUp(sim, n8n.counter);
      return await burst(sim, n8n.counter, count);
    } catch (error) {
      const what = variant === 'raw' ? 'raw ws' : `the trigger at batch ${variant}`;
      throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await n8n.deactivate();
    }
  };
  try {
    const variants: Variant[] = ['raw', ...batchSizes];
    for (const variant of variants) await measure(variant, events / 5);
    // Every round runs all four, starting one further along each time, so a load swing on the
    // shared machine hits every variant alike (ratios are per round).
    const results = new Map<Variant, BurstResult[]>(variants.map((variant) => [variant, []]));
    for (let run = 0; run < runs; run++) {
      for (let i = 0; i < variants.length; i++) {
        const variant = variants[(run + i) % variants.length] as Variant;
        results.get(variant)?.push(await measure(variant, events));
      }
    }
    const rates = (variant: Variant) => (results.get(variant) ?? []).map((r) => r.eventsPerSecond);
    const raw = results.get('raw') ?? [];
    const figures: Figure[] = batchSizes.map((size) => {
      const trigger = results.get(size) ?? [];
      return makeFigure({
        id: size === 1 ? 'P9' : `P9-batch${size}`,
        scenario:
          size === 1
            ? "n8n trigger items emitted through n8n's engine (batch 1: one execution per event)"
            : `n8n trigger items emitted through n8n's engine, batch ${size} (one execution per ${size} events)`,
        unit: 'events/s',
        digits: 0,
        runs: rates(size),
        baseline: { name: 'raw ws + JSON.parse, same process', runs: rates('raw') },
        target: { kind: 'report' },
        details: {
          eventsPerRun: events,
          batchSize: size,
          executionsPerRun: Math.ceil(events / size),
          cpuMicrosPerEvent: round(median(trigger.map((r) => r.clientCpuMicros)), 2),
          baselineCpuMicrosPerEvent: round(median(raw.map((r) => r.clientCpuMicros)), 2),
        },
      });
    });
    figures.push(
      makeFigure({
        id: 'P9-batch100-vs-1',
        scenario: 'n8n trigger, batch 100 against batch 1 (same rounds)',
        unit: 'events/s',
        digits: 0,
        runs: rates(100),
        baseline: { name: 'the trigger with batch 1', runs: rates(1) },
        target: { kind: 'ratio-at-least', threshold: 1 },
      }),
      perCpuSecondFigure({
        id: 'P9-cpu',
        scenario: 'n8n trigger (batch 1), per CPU-second of the n8n process',
        runs: results.get(1) ?? [],
        baseline: { name: 'raw ws + JSON.parse, same process', runs: raw },
        target: { kind: 'report' },
      }),
      perCpuSecondFigure({
        id: 'P9-cpu-batch100',
        scenario: 'n8n trigger (batch 100), per CPU-second of the n8n process',
        runs: results.get(100) ?? [],
        baseline: { name: 'raw ws + JSON.parse, same process', runs: raw },
        target: { kind: 'ratio-at-least', threshold: 0.5 },
      }),
    );
    return figures;
  } finally {
    await n8n.stop();
    await sim.stop();
  }
}
