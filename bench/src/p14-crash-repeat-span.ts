/**
 * P14: what a crash repeats. A subscriber process (children/crash-subscriber.ts: core with default
 * options and a file position written before `save` returns) is killed with SIGKILL `kills` times
 * at random points under a steady 100 events/s (one in ten published up to 5 s late) and restarted
 * after a random pause; each run logs every event it was handed. The figure is, over all kills,
 * the longest span of time over which a killed run had handled events that a later run handled
 * again. Core's README bounds it by `positionSaveMs` (1 s) with such a store; the unit tests
 * (crash-restart, crash-limits) keep that bound, this is the measured span. Anything lost, or
 * handled twice by one run, fails the figure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '@observation-service/simulator';
import { sleep, until } from './lib/clock.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';

const child = fileURLToPath(new URL('./children/crash-subscriber.ts', import.meta.url));
/** Core's default positionSaveMs, in seconds: the README's bound for this store. */
const SAVE_S = 1;

interface Running {
  proc: ChildProcess;
  opened: Promise<void>;
}

function start(env: Record<string, string>): Running {
  const proc = spawn(process.execPath, ['--no-warnings', child], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const opened = new Promise<void>((resolve, reject) => {
    let out = '';
    proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('open')) resolve();
    });
    proc.on('exit', (code, signal) =>
      reject(new Error(`the subscriber exited (${code ?? signal}) before it opened`)),
    );
  });
  return { proc, opened };
}

async function kill(running: Running): Promise<void> {
  if (running.proc.exitCode !== null || running.proc.signalCode !== null) return;
  const exited = new Promise((resolve) => running.proc.once('exit', resolve));
  running.proc.kill('SIGKILL');
  await exited;
}

interface Outcome {
  longestSpanMs: number;
  repeated: number;
  mostRepeatedInOneRun: number;
  lost: number;
  twiceInOneRun: number;
  events: number;
}

function judge(lines: Array<[number, number, number]>, expected: number[]): Outcome {
  const runsOf = new Map<number, Array<[number, number]>>();
  for (const [run, id, at] of lines) {
    const list = runsOf.get(run) ?? [];
    list.push([id, at]);
    runsOf.set(run, list);
  }
  const runs = [...runsOf.keys()].sort((a, b) => a - b);
  const laterOf = new Map<number, Set<number>>();
  const acc = new Set<number>();
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index] as number;
    laterOf.set(run, new Set(acc));
    for (const [id] of runsOf.get(run) ?? []) acc.add(id);
  }
  const outcome: Outcome = {
    longestSpanMs: 0,
    repeated: 0,
    mostRepeatedInOneRun: 0,
    lost: expected.filter((id) => !acc.has(id)).length,
    twiceInOneRun: 0,
    events: expected.length,
  };
  for (const [run, list] of runsOf) {
    outcome.twiceInOneRun += list.length - new Set(list.map(([id]) => id)).size;
    const later = laterOf.get(run) ?? new Set<number>();
    const times = list.filter(([id]) => later.has(id)).map(([, at]) => at);
    outcome.repeated += times.length;
    outcome.mostRepeatedInOneRun = Math.max(outcome.mostRepeatedInOneRun, times.length);
    if (times.length > 0)
      outcome.longestSpanMs = Math.max(outcome.longestSpanMs, Math.max(...times) - Math.min(...times));
  }
  return outcome;
}

async function series(sim: SimulatorProcess, kills: number, random: () => number): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-p14-'));
  const env = {
    SIMULATOR: JSON.stringify(sim.addresses),
    STATE_FILE: join(dir, 'position.json'),
    OUT_FILE: join(dir, 'handled.log'),
  };
  const handled = (): Array<[number, number, number]> => {
    try {
      return readFileSync(env.OUT_FILE, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ').map(Number) as [number, number, number]);
    } catch {
      return [];
    }
  };
  let running = start({ ...env, RUN: '0' });
  const emitted: number[] = [];
  let streaming = true;
  let stream: Promise<void> = Promise.resolve();
  try {
    // The first start is fresh, so live: the stream begins once it is open.
    await running.opened;
    const firstOpenMs = Date.now();
    stream = (async () => {
      while (streaming) {
        emitted.push(...(await sim.pace(100, 45, { latenessMs: 0 })).ids);
        // Never stamped before the first start, which began live: a fresh start does not reach
        // back before its start second (a limit of its own, not this figure's).
        const latenessMs = Math.max(0, Math.min(5_000, Date.now() - firstOpenMs - 2_000));
        emitted.push(...(await sim.pace(100, 5, { latenessMs })).ids);
      }
    })();
    for (let round = 1; round <= kills; round++) {
      await sleep(300 + random() * 1_500);
      await kill(running);
      await sleep(random() * 500);
      running = start({ ...env, RUN: String(round) });
      await running.opened;
    }
    await sleep(500);
    streaming = false;
    await stream;
    const sentinel = await sim.pace(100, 1, { latenessMs: 0 });
    const expected = [...emitted, ...sentinel.ids];
    const seen = () => new Set(handled().map(([, id]) => id));
    await until(
      () => {
        const ids = seen();
        return expected.every((id) => ids.has(id));
      },
      'every event handled',
      30_000,
      50,
    ).catch(() => undefined);
    await kill(running);
    return judge(handled(), expected);
  } finally {
    streaming = false;
    await stream.catch(() => undefined);
    await kill(running);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function p14CrashRepeatSpan({ runs, kills }: { runs: number; kills: number }): Promise<Figure> {
  const sim = await SimulatorProcess.start({ form: 'extended', historySize: 0 });
  const seed = Date.now() % 1_000_000;
  const random = seededRandom(seed);
  try {
    const outcomes: Outcome[] = [];
    for (let run = 0; run < runs; run++) outcomes.push(await series(sim, kills, random));
    const problems: string[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.lost > 0) problems.push(`series ${index + 1}: ${outcome.lost} events never handled`);
      if (outcome.twiceInOneRun > 0)
        problems.push(`series ${index + 1}: ${outcome.twiceInOneRun} events handled twice by one run`);
    }
    return makeFigure({
      id: 'P14',
      scenario: `crash repeat span: ${kills} SIGKILL restarts under 100 events/s, file store, positionSaveMs 1 s`,
      unit: 's',
      digits: 3,
      runs: outcomes.map((outcome) => outcome.longestSpanMs / 1000),
      // The README's bound: positionSaveMs with a store that writes before save returns.
      target: { kind: 'value-below', threshold: SAVE_S },
      problems,
      details: {
        seed,
        killsPerSeries: kills,
        repeated: outcomes.map((outcome) => outcome.repeated),
        mostRepeatedInOneRun: outcomes.map((outcome) => outcome.mostRepeatedInOneRun),
        events: outcomes.map((outcome) => outcome.events),
      },
    });
  } finally {
    await sim.stop();
  }
}
