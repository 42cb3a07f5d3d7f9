// How `npm test` spends 2 cores. Left to turbo, the test tasks start in whatever order they become
// ready, and lint or type-check tasks take a core between two long suites; the suite then ended
// when its longest chain did, minutes after the other core had gone idle. So `npm test` first
// builds, lints and type-checks everything on both cores, then runs the test tasks as two lanes
// side by side, one task at a time in each, with about the same length of work in each lane.
// Before the storms went back to 50,000 events (quiet 2-core machine, CI 830 s): core 330 s +
// Node-RED 447 s in the first lane; the n8n chain ~420 s + gallery 48 s + demo 17 s + bench +
// simulator 25 s + release rehearsal 16 s, 550-600 s, in the second. At 50,000 events core's storm
// file takes 204-268 s (120 s at 20,000; 268 s at load 0.6-0.9, 204 s at 1.8-4.7, 208 s at 5-5.8)
// and Node-RED's 66-86 s (34 s at 20,000; 66 s at load 1.4-1.9, 86 s at 4.9-8.4). So core's storm
// file is a task of its own (`test:storms`) in the second lane, and the gallery, the simulator, the
// demo and the release rehearsal moved to the first. The n8n chain is ~580 s (CI of b5b0418: unit
// 149 s, e2e 283 s, queue mode 136 s): first lane about 210 + 480-500 + 48 + 25 + 17 + 16 =
// 800-820 s, second about 580 + 204-268 = 785-850 s (critical path 777 s before).
// A filtered run (`npm test -- --filter=...`) does not use lanes: turbo runs what was asked, both
// test scripts included.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The package scripts `npm test` runs: `test`, and `test:storms` where a package keeps tests long
 * enough to be planned apart from its others (core's 50,000-event storms). A lane entry is a
 * package name (its `test`) or `package#script`, as turbo writes a package's task.
 */
export const testScripts = ['test', 'test:storms'];

/** The longest suites first in each lane; a test task not named here joins the second. */
export const testLanes = [
  [
    '@observation-service/core',
    '@observation-service/node-red-observation',
    '@observation-service/node-red-dashboard-2-observation-gallery',
    '@observation-service/simulator',
    '@observation-service/demo-e2e',
    '@observation-service/release-e2e',
  ],
  [
    '@observation-service/n8n-nodes-observation',
    '@observation-service/core#test:storms',
    '@observation-service/bench',
  ],
];

/** Package and script of a lane entry. */
export function taskOf(entry) {
  const at = entry.indexOf('#', 1);
  return at < 0 ? { name: entry, script: 'test' } : { name: entry.slice(0, at), script: entry.slice(at + 1) };
}

/** The lane entries of the workspace packages (folders given): one per test script they have. */
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
 * The lanes for these test tasks: every one runs exactly once, so a new package or script is
 * never left out (it joins the last lane, and the log says so); a lane entry that is gone is
 * dropped.
 */
export function planLanes(tasks, log) {
  const lanes = testLanes.map((lane) => lane.filter((entry) => tasks.includes(entry)));
  const planned = new Set(lanes.flat());
  for (const entry of tasks) {
    if (planned.has(entry)) continue;
    log(`${entry} has tests but no lane in scripts/test-lanes.mjs: it runs at the end of the last lane`);
    lanes.at(-1)?.push(entry);
  }
  return lanes;
}

/**
 * Runs each lane's test tasks one after the other (`args(script, name)`: turbo `--only`, the builds
 * are done), the lanes side by side. Every task runs even when an earlier one failed. Resolves to
 * the first non-zero exit status, or 0.
 */
export async function runLanes(lanes, { command, args, cwd, env }) {
  const runOne = (entry) =>
    new Promise((resolve) => {
      const { name, script } = taskOf(entry);
      const child = spawn(command, args(script, name), { cwd, env, stdio: 'inherit' });
      child.on('error', () => resolve(1));
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  const statuses = await Promise.all(
    lanes.map(async (lane) => {
      const results = [];
      for (const entry of lane) results.push(await runOne(entry));
      return results;
    }),
  );
  return statuses.flat().find((status) => status !== 0) ?? 0;
}
