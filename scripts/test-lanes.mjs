// How `npm test` spends 2 cores. After the builds, lint and type checks (run on both cores first),
// the test tasks run from one queue, longest first, in a few lanes side by side: a lane that ends a
// task takes the next one, so no lane waits on another and no core idles while work is left.
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
 * as tasks of their own: core's 50,000-event storms (`test:storms`), the n8n package's real-n8n
 * checks (`test:e2e`: the CLI, the editor, restarts and static data; `test:e2e-crash`: 20 kills
 * and 3 graceful stops under a stream; `test:e2e-community`: n8n's installer, each on its own
 * n8n, user folder and simulator) and queue-mode e2e (`test:queue-mode`), each minutes long, and
 * the alert proofs (`test:alerts`: a cooldown across a restart, a chat down for two minutes),
 * which wait out real minutes at little CPU. A task is a package name (its `test`) or
 * `package#script`, as turbo writes a package's task.
 */
export const testScripts = [
  'test',
  'test:storms',
  'test:e2e',
  'test:e2e-crash',
  'test:e2e-community',
  'test:queue-mode',
  'test:alerts',
];

/**
 * Lanes side by side for the tasks that keep the cores busy: see the comment at the top. Four:
 * the busy tasks use 35-65 % of a core each (CI of 8146b2c: 1,983 CPU-s in 1,206 s, both cores
 * 82 % busy with three lanes), so four of them keep 2 cores about full.
 */
export const laneCount = 4;

/**
 * The tasks that mostly wait (the alert proofs: real minutes at a few CPU-seconds) get one more
 * lane of their own beside those, and nothing else: a fourth lane that also took busy tasks once
 * it was free put four of them on 2 cores (CI of 7825e7b: the n8n e2e, the longest chain, went
 * from 865 to 1,013 s).
 */
export function isWaitingTask(task) {
  return taskOf(task).script === 'test:alerts';
}

const n8n = '@observation-service/n8n-nodes-observation';

/**
 * Every test task, in the order the lanes take them: the longest first, so the short ones fill the
 * ends (walls from CI of 8146b2c, three lanes: the crash restarts about 600 s, Node-RED 600, the
 * rest of the real-n8n e2e about 340, queue mode 430, the n8n unit tests 300, the storms 250).
 * The real-n8n tasks may run beside each other: the n8n install is locked, ports and folders are
 * each run's own.
 */
export const testPlan = [
  `${n8n}#test:e2e-crash`,
  '@observation-service/node-red-observation',
  `${n8n}#test:queue-mode`,
  `${n8n}#test:e2e`,
  '@observation-service/node-red-observation#test:alerts',
  `${n8n}#test:alerts`,
  n8n,
  '@observation-service/core#test:storms',
  '@observation-service/core',
  '@observation-service/demo-e2e',
  `${n8n}#test:e2e-community`,
  '@observation-service/node-red-dashboard-2-observation-gallery',
  '@observation-service/release-e2e',
  '@observation-service/simulator',
  '@observation-service/bench',
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
 * out (it runs last, and the log says so); a planned task that is gone is dropped.
 */
export function planTasks(tasks, log) {
  const plan = testPlan.filter((task) => tasks.includes(task));
  for (const task of tasks) {
    if (plan.includes(task)) continue;
    log(`${task} has tests but no place in scripts/test-lanes.mjs: it runs last`);
    plan.push(task);
  }
  return plan;
}

/**
 * Runs the plan's tasks (`args(script, name)`: turbo `--only`, the builds are done) in `lanes`
 * lanes, and the waiting ones (`isWaitingTask`) in one lane more: each lane takes the next task
 * when it ends one. Every task runs even when an earlier one
 * failed. Each runs under `scripts/usage/measured.mjs`, which counts its CPU seconds. Resolves to
 * the first non-zero exit status (or 0) and one row per task: its lane, start (seconds after the
 * first), wall and CPU seconds, exit code.
 */
export async function runLanes(plan, { lanes = laneCount, command, args, cwd, env }) {
  const usageDir = mkdtempSync(join(tmpdir(), 'observation-test-usage-'));
  const measured = join(import.meta.dirname, 'usage', 'measured.mjs');
  const pending = [...plan];
  const rows = [];
  const firstStart = Date.now();
  const runOne = (task, lane) =>
    new Promise((resolve) => {
      const { name, script } = taskOf(task);
      const usageFile = join(usageDir, `${rows.length}.json`);
      const row = { task, lane, startSeconds: (Date.now() - firstStart) / 1000 };
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
  const lane = async (number, queue) => {
    const statuses = [];
    for (let task = queue.shift(); task !== undefined; task = queue.shift()) {
      statuses.push(await runOne(task, number));
    }
    return statuses;
  };
  const busy = pending.filter((task) => !isWaitingTask(task));
  const waiting = pending.filter(isWaitingTask);
  const statuses = await Promise.all([
    ...Array.from({ length: lanes }, (_, index) => lane(index + 1, busy)),
    ...(waiting.length > 0 ? [lane(lanes + 1, waiting)] : []),
  ]);
  rmSync(usageDir, { recursive: true, force: true });
  return { status: statuses.flat().find((status) => status !== 0) ?? 0, rows };
}
