// How `npm test` spends 2 cores. Left to turbo, the test tasks start in whatever order they become
// ready, and lint or type-check tasks take a core between two long suites; the suite then ended
// when its longest chain did, minutes after the other core had gone idle. So `npm test` first
// builds, lints and type-checks everything on both cores, then runs the test tasks as two lanes
// side by side, one package at a time in each, with about the same length of work in each lane
// (CI of 9d676dc: core 270 s + Node-RED 358 s, then 20 SIGKILLs of Node-RED added ~60 s; the n8n
// chain 390 s, to which 20 SIGKILLs and 3 graceful stops of n8n added ~160 s, + gallery 49 s +
// demo, bench, the simulator and the release rehearsal 60 s).
// A filtered run (`npm test -- --filter=...`) does not use lanes: turbo runs what was asked.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The longest suites first in each lane; a package with tests not named here joins the second. */
export const testLanes = [
  ['@observation-service/core', '@observation-service/node-red-observation'],
  [
    '@observation-service/n8n-nodes-observation',
    '@observation-service/node-red-dashboard-2-observation-gallery',
    '@observation-service/demo-e2e',
    '@observation-service/bench',
    '@observation-service/simulator',
    '@observation-service/release-e2e',
  ],
];

/** Names of the workspace packages (folders given) that have a `test` script. */
export function packagesWithTests(root, folders) {
  return folders
    .map((folder) => join(root, folder, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')))
    .filter((manifest) => typeof manifest.scripts?.test === 'string')
    .map((manifest) => manifest.name);
}

/**
 * The lanes for these packages: every package with tests runs exactly once, so a new package is
 * never left out (it joins the last lane, and the log says so); a lane package that is gone is
 * dropped.
 */
export function planLanes(packages, log) {
  const lanes = testLanes.map((lane) => lane.filter((name) => packages.includes(name)));
  const planned = new Set(lanes.flat());
  for (const name of packages) {
    if (planned.has(name)) continue;
    log(`${name} has tests but no lane in scripts/test-lanes.mjs: it runs at the end of the last lane`);
    lanes.at(-1)?.push(name);
  }
  return lanes;
}

/**
 * Runs each lane's packages' test tasks one after the other (turbo `--only`: the builds are done),
 * the lanes side by side. Every package runs even when an earlier one failed. Resolves to the
 * first non-zero exit status, or 0.
 */
export async function runLanes(lanes, { command, args, cwd, env }) {
  const runOne = (name) =>
    new Promise((resolve) => {
      const child = spawn(command, [...args, `--filter=${name}`], { cwd, env, stdio: 'inherit' });
      child.on('error', () => resolve(1));
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  const statuses = await Promise.all(
    lanes.map(async (lane) => {
      const results = [];
      for (const name of lane) results.push(await runOne(name));
      return results;
    }),
  );
  return statuses.flat().find((status) => status !== 0) ?? 0;
}
