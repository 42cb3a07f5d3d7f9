/**
 * P10: events/s of core's normalizeEvent on realistic frames of both forms (JSON.parse +
 * normalizeEvent, what the subscription does per frame) against JSON.parse alone on the same
 * frames. The frames are recorded from the simulator's realtime sockets first, so this is pure
 * CPU work on real payloads; each round times the baseline and the subject back to back.
 */
import { normalizeEvent } from '@observation-service/core';
import { until } from './lib/clock.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { RawClient } from './lib/raw-client.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';

type Form = 'basic' | 'extended';

/** Records `count` realtime frames of one form as the socket delivers them. */
async function recordFrames(sim: SimulatorProcess, form: Form, count: number): Promise<string[]> {
  const { wsUrl, serviceId, token } = sim.addresses;
  const taskId = 1;
  const path = form === 'basic' ? `${taskId}` : `${serviceId}/0`;
  const client = await RawClient.connect(
    `${wsUrl}/events/realtime/${path}?token=${encodeURIComponent(token)}`,
  );
  const frames: string[] = [];
  client.ws.on('message', (data: Buffer) => frames.push(data.toString('utf8')));
  try {
    // Several tasks in the extended form; the basic socket follows one task by definition.
    const taskIds = form === 'basic' ? [taskId] : undefined;
    for (let round = 0; frames.length < count; round++) {
      if (round > 20) throw new Error(`P10: recorded only ${frames.length} ${form} frames`);
      await sim.emit(count - frames.length, taskIds ? { taskIds } : undefined);
      await until(() => frames.length >= count, `${form} frames`, 1_000).catch(() => undefined);
    }
  } finally {
    await client.close();
  }
  return frames.slice(0, count);
}

/**
 * Events per CPU-second of this process: the loop is pure CPU work, and on a machine shared with
 * other work the CPU time it took drifts far less than the wall-clock time (time spent waiting
 * for a core is not counted; GC threads are).
 */
function perCpuSecond(
  frames: readonly string[],
  work: (frame: string) => number,
): { rate: number; sink: number } {
  let sink = 0;
  const before = process.cpuUsage();
  for (const frame of frames) sink += work(frame);
  const used = process.cpuUsage(before);
  return { rate: frames.length / ((used.user + used.system) / 1e6), sink };
}

const parseOnly = (frame: string): number => (JSON.parse(frame) as { task_id: number }).task_id;

function parseAndNormalize(frame: string): number {
  const { event } = normalizeEvent(JSON.parse(frame));
  if (event === undefined) throw new Error('P10: a simulator frame did not normalize');
  return event.maxConfidence;
}

export async function p10Normalization({
  events,
  runs,
}: {
  events: number;
  runs: number;
}): Promise<Figure[]> {
  const sim = await SimulatorProcess.start({ form: 'both' });
  const recorded: Record<Form, string[]> = { extended: [], basic: [] };
  try {
    for (const form of ['extended', 'basic'] as const) recorded[form] = await recordFrames(sim, form, events);
  } finally {
    await sim.stop();
  }
  const figures: Figure[] = [];
  for (const form of ['extended', 'basic'] as const) {
    const frames = recorded[form];
    const bytes = frames.reduce((sum, frame) => sum + Buffer.byteLength(frame), 0);
    perCpuSecond(frames, parseOnly);
    perCpuSecond(frames, parseAndNormalize);
    const parse: number[] = [];
    const normalize: number[] = [];
    for (let run = 0; run < runs; run++) {
      parse.push(perCpuSecond(frames, parseOnly).rate);
      normalize.push(perCpuSecond(frames, parseAndNormalize).rate);
    }
    figures.push(
      makeFigure({
        id: `P10-${form}`,
        scenario: `JSON.parse + normalizeEvent, ${form} form`,
        unit: 'events/CPU-s',
        digits: 0,
        runs: normalize,
        baseline: { name: 'JSON.parse alone', runs: parse },
        target: { kind: 'report' },
        details: { framesPerRun: frames.length, averageFrameBytes: Math.round(bytes / frames.length) },
      }),
    );
  }
  return figures;
}
