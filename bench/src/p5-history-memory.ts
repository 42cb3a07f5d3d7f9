/**
 * P5: RSS growth of a process streaming 1,000,000 history events through core's historyAll
 * (normalization on): peak RSS over the stream after a warm-up of the first 20 % (see
 * WARM_UP_SHARE) minus the RSS at the end of the warm-up; the growth from a cold start is reported
 * beside it (see children/history-memory.ts for why the two differ). Basic form: its pages hold
 * 10,000 events (the extended form's hold 100), the largest working set a client can be handed.
 * Every run is a fresh process; the simulator has its own.
 */
import { fileURLToPath } from 'node:url';
import { type Figure, makeFigure } from './lib/figure.ts';
import type { HistoryForm } from './lib/history-readers.ts';
import { runChild } from './lib/run-child.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { round } from './lib/stats.ts';

/**
 * The share of the stream that is warm-up. V8 sizes its heap for the reader's allocation rate
 * over the first 100,000 to 150,000 events; after that the RSS moves within 15 MB to the millionth
 * event (sampled every 100 ms in two streams on 2026-11-29: 334–349 MB and 359–374 MB). At 10 %
 * the end of the warm-up fell on that climb, so the figure measured where the climb stood at that
 * instant (one run read 6.2, 65.6 and 47.4 MB), not growth with the events streamed.
 */
const WARM_UP_SHARE = 0.2;

interface MemoryRun {
  count: number;
  seconds: number;
  rssBeforeMb: number;
  rssWarmMb: number;
  rssPeakMb: number;
  growthMb: number;
  coldGrowthMb: number;
}

const child = fileURLToPath(new URL('./children/history-memory.ts', import.meta.url));

export async function p5HistoryMemory({
  events,
  runs,
  form,
}: {
  events: number;
  runs: number;
  form: HistoryForm;
}): Promise<Figure> {
  const warmUpEvents = Math.round(events * WARM_UP_SHARE);
  const sim = await SimulatorProcess.start({ form: 'both', historySize: events });
  try {
    const results: MemoryRun[] = [];
    for (let run = 0; run < runs; run++) {
      const result = await runChild<MemoryRun>(child, [
        JSON.stringify(sim.addresses),
        form,
        String(warmUpEvents),
      ]);
      if (result.count !== events) throw new Error(`P5: streamed ${result.count} of ${events} events`);
      results.push(result);
    }
    return makeFigure({
      id: 'P5',
      scenario: `RSS growth, ${events.toLocaleString('en')} history events, ${form}`,
      unit: 'MB',
      digits: 1,
      runs: results.map((r) => r.growthMb),
      target: { kind: 'value-below', threshold: 50 },
      details: {
        form,
        warmUpEvents,
        coldGrowthMb: results.map((r) => round(r.coldGrowthMb, 1)),
        rssBeforeMb: results.map((r) => round(r.rssBeforeMb, 1)),
        rssWarmMb: results.map((r) => round(r.rssWarmMb, 1)),
        rssPeakMb: results.map((r) => round(r.rssPeakMb, 1)),
        seconds: results.map((r) => round(r.seconds, 1)),
        eventsPerSecond: results.map((r) => Math.round(events / r.seconds)),
      },
    });
  } finally {
    await sim.stop();
  }
}
