/**
 * P12: snapshots that arrive with the event, in a real Node-RED (own process) whose events node
 * attaches the snapshot and the annotated snapshot (core's media option, drawing in worker
 * threads), fed by the simulator (own process).
 *   P12-rate: events paced at 10/s on one task, each snapshot written 3 s after its event is
 *     published (404 until then). Sustained rate = (n − 1) ÷ (last arrival − first arrival); every
 *     message must carry its annotated image, in the order the events were published.
 *   P12-loop: Node-RED's event-loop delay (p99, monitorEventLoopDelay at 10 ms resolution) while
 *     the node annotates 1080p JPEG camera frames at 5 events/s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCameraFrame } from '@observation-service/simulator';
import { type Figure, makeFigure } from './lib/figure.ts';
import { NodeRedProcess } from './lib/node-red-process.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { median, round } from './lib/stats.ts';

const task = 1;

/** Deploys the annotating flow and sends a few events through it, so the workers are started. */
async function ready(red: NodeRedProcess, sim: SimulatorProcess): Promise<void> {
  await red.deploy('observation-annotated', sim.addresses);
  await red.counter.reset(true);
  for (let round = 0; (await red.counter.count()) < 3; round++) {
    if (round > 200) throw new Error('P12: the annotating flow received no warm-up event');
    if (round % 20 === 0) await sim.emit(1, { taskIds: [task] });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Every warm-up event must be through before the reset, or one still being annotated (a 1080p
  // frame takes about a second on a slow machine) is counted in the first measured run: a
  // sentinel sent after them comes out after them (the node keeps the order).
  const { lastId } = await sim.emit(1, { taskIds: [task] });
  for (let round = 0; !(await red.counter.times()).ids.includes(lastId); round++) {
    if (round > 1_200) throw new Error('P12: the warm-up sentinel did not arrive');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await red.counter.reset(true);
  await red.images(true);
}

interface Paced {
  ids: number[];
  problems: string[];
  arrivals: number[];
}

/** Paces `count` events, waits for them all, and checks they came in order with their images. */
async function pacedThrough(
  red: NodeRedProcess,
  sim: SimulatorProcess,
  rate: number,
  count: number,
  snapshotDelayMs: number,
): Promise<Paced> {
  await red.counter.reset(true);
  await red.images(true);
  const { ids } = await sim.pace(rate, count, { taskIds: [task], latenessMs: 0, snapshotDelayMs });
  const { received } = await red.counter.waitFor(count, 60_000 + snapshotDelayMs);
  const handled = await red.counter.times();
  const seen = await red.images(true);
  const problems: string[] = [];
  if (received !== count) problems.push(`${received} of ${count} events arrived`);
  if (handled.ids.join() !== ids.join()) problems.push('the events did not arrive in the order published');
  if (seen.annotated !== count)
    problems.push(`${seen.annotated} of ${count} messages had the annotated image`);
  if (seen.missing !== 0) problems.push(`${seen.missing} messages were flagged with a missing image`);
  return { ids, problems, arrivals: handled.times };
}

export async function p12Media({ runs }: { runs: number }): Promise<Figure[]> {
  const rates: number[] = [];
  const ratesProblems: string[] = [];
  const lateness: number[] = [];
  const loopP99: number[] = [];
  const loopMax: number[] = [];
  const loopProblems: string[] = [];
  const framesDir = mkdtempSync(join(tmpdir(), 'observation-bench-frames-'));
  const red = await NodeRedProcess.start();
  try {
    const sim = await SimulatorProcess.start({ form: 'extended' });
    try {
      await ready(red, sim);
      for (let run = 0; run < runs; run++) {
        const count = 150;
        const { problems, arrivals } = await pacedThrough(red, sim, 10, count, 3_000);
        ratesProblems.push(...problems);
        const first = arrivals[0] as number;
        const last = arrivals.at(-1) as number;
        rates.push((count - 1) / ((last - first) / 1000));
        lateness.push(last - first);
      }
    } finally {
      await red.deploy('none', sim.addresses);
      await sim.stop();
    }
    const frames = await SimulatorProcess.start({
      form: 'extended',
      snapshotFile: writeCameraFrame(framesDir),
    });
    try {
      await ready(red, frames);
      for (let run = 0; run < runs; run++) {
        await red.watchLoop();
        const { problems } = await pacedThrough(red, frames, 5, 50, 0);
        const delay = await red.loopDelay();
        loopProblems.push(...problems);
        loopP99.push(delay.p99);
        loopMax.push(delay.max);
      }
    } finally {
      await red.deploy('none', frames.addresses);
      await frames.stop();
    }
  } finally {
    await red.stop();
    rmSync(framesDir, { recursive: true, force: true });
  }
  return [
    makeFigure({
      id: 'P12-rate',
      scenario: 'Node-RED events node, snapshot + annotated, 10 events/s, each snapshot written 3 s late',
      unit: 'events/s',
      digits: 1,
      runs: rates,
      target: { kind: 'value-at-least', threshold: 10 },
      details: { eventsPerRun: 150, arrivalSpanMs: lateness.map((ms) => round(ms, 0)) },
      problems: [...new Set(ratesProblems)],
    }),
    makeFigure({
      id: 'P12-loop',
      scenario: 'Node-RED event-loop delay p99 while annotating 1080p JPEG snapshots at 5 events/s',
      unit: 'ms',
      digits: 1,
      runs: loopP99,
      target: { kind: 'value-below', threshold: 50 },
      details: { eventsPerRun: 50, maxDelayMs: round(median(loopMax), 1) },
      problems: [...new Set(loopProblems)],
    }),
  ];
}
