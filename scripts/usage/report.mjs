// The table `npm test` prints at its end, so the next person sees where the minutes go: each lane
// with its tasks, each task's wall and CPU seconds, and every test file's (from the rows
// file-usage.mjs appends in each package), slowest first; then the whole run against its budget.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const fileUsageName = '.vitest-usage.jsonl';

/** The budget `npm test` is held to on 2 cores (README, "npm test"). */
export const budgetSeconds = 600;

/** Removes the per-file rows an earlier run left in these workspace folders. */
export function clearFileUsage(root, folders) {
  for (const folder of folders) rmSync(join(root, folder, fileUsageName), { force: true });
}

/** Every test file's row, `{ folder, file, project, wallSeconds, cpuSeconds }`. */
export function fileUsage(root, folders) {
  return folders.flatMap((folder) => {
    const path = join(root, folder, fileUsageName);
    if (!existsSync(path)) return [];
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => ({ folder, ...JSON.parse(line) }));
  });
}

const shortName = (task) => task.replace('@observation-service/', '');
const secs = (value) => (value === undefined ? '?' : value.toFixed(0)).padStart(5);
const busy = (cpu, wall) =>
  cpu === undefined || !wall ? '' : ` (${Math.round((100 * cpu) / wall)} % of a core)`;

/**
 * `tasks`: rows from runLanes; `files`: from fileUsage; `checks`: the build, lint and type-check
 * step's `{ wallSeconds, cpuSeconds }`; `total`: the whole run's.
 */
export function printUsage({ tasks, files, checks, total, cores = 2 }) {
  const lines = ['', 'Where the time went (seconds, wall / CPU):'];
  if (checks)
    lines.push(`  build, lint, type checks: ${secs(checks.wallSeconds)} / ${secs(checks.cpuSeconds)}`);
  const lanes = [...new Set(tasks.map((row) => row.lane))].sort((a, b) => a - b);
  for (const lane of lanes) {
    const own = tasks.filter((row) => row.lane === lane);
    const wall = own.reduce((sum, row) => sum + (row.wallSeconds ?? 0), 0);
    const cpu = own.reduce((sum, row) => sum + (row.cpuSeconds ?? 0), 0);
    lines.push(`  lane ${lane}: ${secs(wall)} / ${secs(cpu)}${busy(cpu, wall)}`);
    for (const row of own) {
      lines.push(
        `    ${secs(row.wallSeconds)} / ${secs(row.cpuSeconds)}  from ${secs(row.startSeconds)} s  ${shortName(row.task)}${row.code ? ` (exit ${row.code})` : ''}`,
      );
    }
  }
  if (files.length > 0) {
    lines.push('  test files, slowest first:');
    for (const row of [...files].sort((a, b) => b.wallSeconds - a.wallSeconds)) {
      const project = row.project ? ` [${row.project}]` : '';
      lines.push(
        `    ${secs(row.wallSeconds)} / ${secs(row.cpuSeconds)}  ${row.folder}/${row.file}${project}`,
      );
    }
  }
  if (total) {
    const share = Math.round((100 * total.cpuSeconds) / (cores * total.wallSeconds));
    lines.push(
      `  whole run: ${secs(total.wallSeconds)} / ${secs(total.cpuSeconds)}: both cores ${share} % busy; budget ${budgetSeconds} s${total.wallSeconds > budgetSeconds ? ' (over)' : ''}`,
    );
  }
  console.log(lines.join('\n'));
}
