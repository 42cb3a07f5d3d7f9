// Drives crash-subscriber.ts for the crash tests: subscribers with a file position under one
// steady stream, each killed with SIGKILL at random points and restarted, then judged on what
// their handled logs show: what was lost, and what a restart handled again.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Simulator } from '@observation-service/simulator';

const child = fileURLToPath(new URL('./crash-subscriber.ts', import.meta.url));
const hooks = fileURLToPath(new URL('./ts-source-hooks.mjs', import.meta.url));
const built = new URL('../../dist/index.js', import.meta.url);
const sources = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * How a subscriber loads core. The crash tests start it some 36 times: from the sources each start
 * compiles core's TypeScript again (1.3 CPU-s, against 0.3 for the built file, measured), so it
 * loads the build `npm test` makes first, unless a source file is newer (an edit not built yet,
 * in a run by hand): then the sources.
 */
function subscriberArgs(): { args: string[]; env: Record<string, string> } {
  const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
  const newest = readdirSync(sources, { recursive: true, withFileTypes: true })
    .filter(
      (entry) =>
        entry.isFile() && /(?<!\.test)\.ts$/.test(entry.name) && !entry.parentPath.includes('__tests__'),
    )
    .reduce((latest, entry) => Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
  if (builtAt > newest) return { args: ['--no-warnings', child], env: { CORE_ENTRY: built.href } };
  return { args: ['--experimental-transform-types', '--no-warnings', '--import', hooks, child], env: {} };
}
let entry: ReturnType<typeof subscriberArgs> | undefined;

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Running {
  proc: ChildProcess;
  opened: Promise<void>;
}

/** Starts one run of the subscriber; `opened` settles once its socket is open. */
export function startSubscriber(env: Record<string, string>): Running {
  entry ??= subscriberArgs();
  const proc = spawn(process.execPath, entry.args, {
    env: { ...process.env, ...env, ...entry.env },
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

export async function kill(running: Running): Promise<void> {
  if (running.proc.exitCode !== null || running.proc.signalCode !== null) return;
  const exited = new Promise((resolve) => running.proc.once('exit', resolve));
  running.proc.kill('SIGKILL');
  await exited;
}

/** What one subscriber's handled log shows after its kills. */
export interface CrashOutcome {
  /** Emitted ids (and the sentinel) it never handled. */
  lost: number[];
  /** Events one run handled twice (never expected: a run admits by identity). */
  twiceInOneRun: number;
  /** Events a killed run handled that a later run handled again. */
  repeated: number;
  /** The most of those in one killed run. */
  mostRepeatedInOneRun: number;
  /** Per killed run, the span of time over which it had handled those events; the longest. */
  longestSpanMs: number;
  /**
   * Per killed run, how many more events were repeated than it had handled in its last
   * `windowMs` (the count a bound in time allows: "at most that long of acknowledged events");
   * the most. 0 or below when every run kept to it, whatever its rate.
   */
  mostRepeatedOverWindow: number;
}

type Line = [run: number, id: number, at: number];

export function readHandled(outFile: string): Line[] {
  let text = '';
  try {
    text = readFileSync(outFile, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ').map(Number) as Line);
}

export function judge(lines: Line[], expected: number[], windowMs = Number.POSITIVE_INFINITY): CrashOutcome {
  const seen = new Set(lines.map(([, id]) => id));
  const runsOf = new Map<number, Array<[number, number]>>();
  for (const [run, id, at] of lines) {
    const list = runsOf.get(run) ?? [];
    list.push([id, at]);
    runsOf.set(run, list);
  }
  // Ids handled by runs after each run, built from the last run backwards.
  const runs = [...runsOf.keys()].sort((a, b) => a - b);
  const later = new Map<number, Set<number>>();
  const acc = new Set<number>();
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index] as number;
    later.set(run, new Set(acc));
    for (const [id] of runsOf.get(run) ?? []) acc.add(id);
  }
  let twiceInOneRun = 0;
  let repeated = 0;
  let mostRepeatedInOneRun = 0;
  let longestSpanMs = 0;
  let mostRepeatedOverWindow = Number.NEGATIVE_INFINITY;
  for (const [run, list] of runsOf) {
    twiceInOneRun += list.length - new Set(list.map(([id]) => id)).size;
    const again = later.get(run) ?? new Set<number>();
    const times = list.filter(([id]) => again.has(id)).map(([, at]) => at);
    repeated += times.length;
    mostRepeatedInOneRun = Math.max(mostRepeatedInOneRun, times.length);
    if (times.length > 0) longestSpanMs = Math.max(longestSpanMs, Math.max(...times) - Math.min(...times));
    if (again.size > 0) {
      const lastAt = Math.max(...list.map(([, at]) => at));
      const inWindow = list.filter(([, at]) => at >= lastAt - windowMs).length;
      mostRepeatedOverWindow = Math.max(mostRepeatedOverWindow, times.length - inWindow);
    }
  }
  return {
    lost: expected.filter((id) => !seen.has(id)),
    twiceInOneRun,
    repeated,
    mostRepeatedInOneRun,
    longestSpanMs,
    mostRepeatedOverWindow,
  };
}

export interface CrashVariant {
  name: string;
  /** Extra environment for crash-subscriber.ts (its knobs). */
  env: Record<string, string>;
  /** The bound in time on what a kill repeats, to bound the count by (see mostRepeatedOverWindow). */
  windowMs?: number;
}

export interface CrashRunOptions {
  sim: Simulator;
  variants: CrashVariant[];
  kills: number;
  random: () => number;
  /** Up between kills: this plus up to `upJitterMs` (random). */
  upMs: number;
  upJitterMs: number;
  /** Down after a kill: up to this (random). */
  downJitterMs: number;
}

/**
 * Runs every variant side by side under one stream of 100 events/s (every fifth published late,
 * up to 20 s, so some are found only by a restart's lateness read-back), each killed `kills`
 * times at its own random points; then waits until each has handled every emitted event and a
 * sentinel (30 s at most: the outcome names what is missing) and judges each log.
 */
export async function crashRun(options: CrashRunOptions): Promise<{
  emitted: number;
  outcomes: Map<string, CrashOutcome>;
}> {
  const { sim, variants, kills, random } = options;
  const dir = mkdtempSync(join(tmpdir(), 'core-crash-'));
  const base = {
    SIMULATOR: JSON.stringify({ apiUrl: sim.apiUrl, token: sim.token, serviceId: sim.serviceId }),
  };
  const envOf = (name: string) => ({
    ...base,
    STATE_FILE: join(dir, `${name}.position.json`),
    OUT_FILE: join(dir, `${name}.handled.log`),
  });
  const running = new Map<string, Running>();
  const emitted: number[] = [];
  let streaming = true;
  let stream: Promise<void> = Promise.resolve();
  try {
    // First starts are fresh, so live: the stream begins once every one is open.
    for (const variant of variants) {
      running.set(variant.name, startSubscriber({ ...envOf(variant.name), ...variant.env, RUN: '0' }));
    }
    await Promise.all([...running.values()].map((run) => run.opened));
    const firstOpenMs = Date.now();
    stream = (async () => {
      while (streaming) {
        const age = Math.min(20_000, Date.now() - firstOpenMs - 2_000);
        const latenessMs = emitted.length % 5 === 4 && age > 0 ? age : 0;
        for (const event of await sim.control.emit(1, { latenessMs })) emitted.push(event.id);
        await pause(10);
      }
    })();
    await Promise.all(
      variants.map(async (variant) => {
        for (let round = 1; round <= kills; round++) {
          await pause(options.upMs + random() * options.upJitterMs);
          await kill(running.get(variant.name) as Running);
          // Down for a while (events go on): the restart catches up from the saved position.
          await pause(random() * options.downJitterMs);
          const next = startSubscriber({ ...envOf(variant.name), ...variant.env, RUN: String(round) });
          running.set(variant.name, next);
          await next.opened;
        }
      }),
    );
    await pause(500);
    streaming = false;
    await stream;
    // Positive evidence that every live socket is through: an on-time sentinel. Late events of
    // the last downtime may still come from the read-back: every emitted id is waited for.
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    const expected = [...emitted, sentinel?.id as number];
    const outcomes = new Map<string, CrashOutcome>();
    const started = Date.now();
    for (const variant of variants) {
      const out = envOf(variant.name).OUT_FILE;
      const missing = () => judge(readHandled(out), expected, variant.windowMs).lost.length;
      while (missing() > 0 && Date.now() - started < 30_000) await pause(50);
      await kill(running.get(variant.name) as Running);
      outcomes.set(variant.name, judge(readHandled(out), expected, variant.windowMs));
    }
    return { emitted: emitted.length, outcomes };
  } finally {
    streaming = false;
    await stream.catch(() => undefined);
    for (const run of running.values()) await kill(run);
    rmSync(dir, { recursive: true, force: true });
  }
}
