// How `npm test` spends 2 cores. After the builds, lint and type checks (run on both cores first),
// the test tasks run from one queue, longest first, in a few lanes side by side: a lane that ends a
// task takes the next ready one, so no lane waits on another and no core idles while work is left.
// There are more lanes than cores because most test tasks mostly wait (on sockets, on Node-RED and
// n8n starting and stopping, on a slow sink): with one task per core both cores were about 75 %
// busy (CI of 283bb22, 1,129 s on a quiet 2-core machine, two lanes of 800-850 s). Measured figures
// per task and per file: the table `npm test` prints at its end (scripts/usage/report.mjs).
// A filtered run (`npm test -- --filter=...`) does not use lanes: turbo runs what was asked, every
// test script included.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The package scripts `npm test` runs: `test`, and the parts a package keeps apart so they run
 * as tasks of their own: core's 50,000-event storms (`test:storms`), and the n8n package's real-n8n
 * e2e (`test:e2e`) and queue-mode e2e (`test:queue-mode`), each minutes long. A task is a package
 * name (its `test`) or `package#script`, as turbo writes a package's task.
 */
export const testScripts = ['test', 'test:storms', 'test:e2e', 'test:queue-mode'];

/** Lanes side by side: see the comment at the top. */
export const laneCount = 3;

const n8n = '@observation-service/n8n-nodes-observation';

/**
 * Every test task, in the order the lanes take them: the longest first, so the short ones fill
 * the ends. `after`: tasks that must have ended before this one starts. The queue-mode e2e waits
 * for the e2e: both run the same n8n install, and two n8n e2e runs at once would each take twice
 * as long for no gain in the total.
 */
export const testPlan = [
  { task: '@observation-service/node-red-observation' },
  { task: `${n8n}#test:e2e` },
  { task: '@observation-service/core#test:storms' },
  { task: '@observation-service/core' },
  { task: n8n },
  { task: `${n8n}#test:queue-mode`, after: [`${n8n}#test:e2e`] },
  { task: '@observation-service/node-red-dashboard-2-observation-gallery' },
  { task: '@observation-service/simulator' },
  { task: '@observation-service/demo-e2e' },
  { task: '@observation-service/release-e2e' },
  { task: '@observation-service/bench' },
];

/** Package and script of a task. */
export function taskOf(entry) {
  const at = entry.indexOf('#', 1);
  return at < 0 ? { name: entry, script: 'test' } : { name: entry.slice(0, at), script: entry.slice(at + 1) };
}

/** The tasks of the workspace packages (folders given): one per test script they have. */
export function testTasksOf(root, folders) {
  return folders
    .map((folder) => join(root, folder, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')))
    .flatMap((manifest) =>
      testScripts
        .filter((script) => typeof manifest.scripts?.[script] === 'string')
        .map((script) => (script === 'test' ? manifest.name : `${manifest.name}#${script}`)),
    );
}

/**
 * The plan for these tasks: every one runs exactly once, so a new package or script is never left
 * out (it runs last, and the log says so); a planned task that is gone is dropped, and so is an
 * `after` that names one.
 */
export function planTasks(tasks, log) {
  const plan = testPlan
    .filter((entry) => tasks.includes(entry.task))
    .map((entry) => ({
      task: entry.task,
      after: (entry.after ?? []).filter((task) => tasks.includes(task)),
    }));
  const planned = new Set(plan.map((entry) => entry.task));
  for (const task of tasks) {
    if (planned.has(task)) continue;
    log(`${task} has tests but no place in scripts/test-lanes.mjs: it runs last`);
    plan.push({ task, after: [] });
  }
  return plan;
}

/**
 * Runs the plan's tasks (`args(script, name)`: turbo `--only`, the builds are done) in `lanes`
 * lanes: each lane takes the first task whose `after` have ended, and waits for one to end when
 * none is ready. Every task runs even when an earlier one failed. Each runs under
 * `scripts/usage/measured.mjs`, which counts its CPU seconds. Resolves to the first non-zero exit
 * status (or 0) and one row per task: its lane, start (seconds after the first), wall and CPU
 * seconds, exit code.
 */
export async function runLanes(plan, { lanes = laneCount, command, args, cwd, env }) {
  const usageDir = mkdtempSync(join(tmpdir(), 'observation-test-usage-'));
  const measured = join(import.meta.dirname, 'usage', 'measured.mjs');
  const pending = [...plan];
  const ended = new Set();
  const rows = [];
  const firstStart = Date.now();
  let wake = () => {};
  let taskEnded = new Promise((resolve) => {
    wake = resolve;
  });
  const runOne = (entry, lane) =>
    new Promise((resolve) => {
      const { name, script } = taskOf(entry.task);
      const usageFile = join(usageDir, `${rows.length}.json`);
      const row = { task: entry.task, lane, startSeconds: (Date.now() - firstStart) / 1000 };
      rows.push(row);
      const started = Date.now();
      const child = spawn('node', [measured, usageFile, command, ...args(script, name)], {
        cwd,
        env,
        stdio: 'inherit',
      });
      const finish = (code) => {
        row.wallSeconds = (Date.now() - started) / 1000;
        row.cpuSeconds = existsSync(usageFile)
          ? JSON.parse(readFileSync(usageFile, 'utf8')).cpuSeconds
          : undefined;
        row.code = code;
        resolve(code);
      };
      child.on('error', () => finish(1));
      child.on('exit', (code, signal) => finish(code ?? (signal ? 1 : 0)));
    });
  const lane = async (number) => {
    const statuses = [];
    while (pending.length > 0) {
      const at = pending.findIndex((entry) => entry.after.every((task) => ended.has(task)));
      if (at < 0) {
        await taskEnded;
        continue;
      }
      const [entry] = pending.splice(at, 1);
      statuses.push(await runOne(entry, number));
      ended.add(entry.task);
      wake();
      taskEnded = new Promise((resolve) => {
        wake = resolve;
      });
    }
    return statuses;
  };
  const statuses = await Promise.all(Array.from({ length: lanes }, (_, index) => lane(index + 1)));
  rmSync(usageDir, { recursive: true, force: true });
  return { status: statuses.flat().find((status) => status !== 0) ?? 0, rows };
}
