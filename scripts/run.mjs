#!/usr/bin/env node
// Entry point of the README's commands. It must run on a bare Node 20 + npm machine, so it uses
// only Node's standard library: it installs the pinned toolchain (Node 24 and pnpm, both from the
// npm registry, see .toolchain/package.json), then the workspace, then runs the task with the
// toolchain first on PATH so every script pnpm and turbo start uses Node 24.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backgroundLogFile, backgroundPidFile, e2eDir } from '../e2e/n8n/n8n-install.mjs';
import { postgresBinDir, redisServerBin } from '../e2e/n8n/queue-mode/services.mjs';
import { inForeground } from './demo/foreground.mjs';
import { planTasks, runLanes, testScripts, testTasksOf } from './test-lanes.mjs';
import { cpuSecondsWithChildren } from './usage/cpu-seconds.mjs';
import { clearFileUsage, fileUsage, printUsage } from './usage/report.mjs';

// The process that ran us (npm's shell): read before the set-up, which may outlast it.
const startedUnder = process.ppid;
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const toolchainDir = join(root, '.toolchain');
const toolchainBin = join(toolchainDir, 'node_modules', '.bin');
const pinned = JSON.parse(readFileSync(join(toolchainDir, 'package.json'), 'utf8')).dependencies;

const env = {
  ...process.env,
  PATH: `${toolchainBin}${delimiter}${process.env.PATH ?? ''}`,
  TURBO_TELEMETRY_DISABLED: '1',
  DO_NOT_TRACK: '1',
  // pnpm would otherwise ask before recreating node_modules; CI and first runs have no stdin.
  CI: process.env.CI ?? (process.stdin.isTTY ? '' : 'true'),
};
if (!env.CI) delete env.CI;
// Node keeps the code it compiled for each module here and reuses it in every later process: the
// tests start Node-RED, n8n, vitest workers and the simulator hundreds of times over the same
// modules, and each start compiled them again (a quarter of a Node-RED start's CPU, measured).
env.NODE_COMPILE_CACHE ??= join(root, 'node_modules', '.cache', 'node-compile-cache');
// Where the registry is reached through a TLS-inspecting proxy, the machine's npm is told the CA
// file (`cafile`, passed to us as npm_config_cafile). pnpm passes no such setting on to the
// scripts it runs, so nested installs (the n8n e2e) and tests would fail TLS and retry forever;
// Node's own variable carries the same trust to every process we start.
if (process.env.npm_config_cafile && !env.NODE_EXTRA_CA_CERTS) {
  env.NODE_EXTRA_CA_CERTS = process.env.npm_config_cafile;
}

/** Workspace packages outside packages/ (see pnpm-workspace.yaml) that install and test too. */
const workspaceExtras = ['bench', 'e2e/demo', 'e2e/release'];

/** Every workspace package's folder, relative to the root. */
function workspaceFolders() {
  return [...readdirSync(join(root, 'packages')).map((dir) => join('packages', dir)), ...workspaceExtras];
}

function log(message) {
  console.log(`\x1b[36m[setup]\x1b[0m ${message}`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', env, cwd: root, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function must(command, args, options) {
  const status = run(command, args, options);
  if (status !== 0) {
    console.error(`\n${command} ${args.join(' ')} failed with exit code ${status}`);
    process.exit(status);
  }
}

function capture(command, args) {
  const result = spawnSync(command, args, { env, cwd: root, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : '';
}

function ensureToolchain() {
  const nodeBin = join(toolchainBin, 'node');
  const ok =
    existsSync(nodeBin) &&
    existsSync(join(toolchainBin, 'pnpm')) &&
    capture(nodeBin, ['-v']) === `v${pinned.node}` &&
    capture(nodeBin, [join(toolchainBin, 'pnpm'), '-v']) === pinned.pnpm;
  if (ok) return;
  log(`installing Node ${pinned.node} and pnpm ${pinned.pnpm} from the npm registry into .toolchain/`);
  const started = Date.now();
  // The machine's own npm (any version) installs the lockfile-pinned toolchain.
  must('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: toolchainDir,
    env: { ...process.env },
  });
  log(`toolchain ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function installStamp() {
  const hash = createHash('sha256');
  hash.update(pinned.node + pinned.pnpm);
  const files = ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc'];
  for (const dir of workspaceFolders()) files.push(join(dir, 'package.json'));
  for (const file of files) {
    const path = join(root, file);
    hash.update(file);
    if (existsSync(path)) hash.update(readFileSync(path));
  }
  return hash.digest('hex');
}

function ensureDependencies() {
  const stampFile = join(root, 'node_modules', '.install-stamp');
  const stamp = installStamp();
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  log('installing workspace dependencies with pnpm');
  const started = Date.now();
  const frozen = existsSync(join(root, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
  must('pnpm', ['install', ...frozen]);
  writeFileSync(stampFile, stamp);
  log(`dependencies ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** apt-get install of Debian packages (root machines only); quiet unless it fails. */
function aptInstall(packages) {
  const apt = ['-o', 'DPkg::Lock::Timeout=300', '-qq'];
  must('apt-get', [...apt, 'update'], { stdio: ['ignore', 'ignore', 'inherit'] });
  must('apt-get', [...apt, 'install', '-y', '--no-install-recommends', ...packages], {
    stdio: ['ignore', 'ignore', 'inherit'],
    // dpkg runs ldconfig, start-stop-daemon and friends from the sbin folders, which a minimal
    // PATH (CI's, `env -i`) may lack.
    env: {
      ...env,
      DEBIAN_FRONTEND: 'noninteractive',
      PATH: `${env.PATH}${delimiter}/usr/sbin${delimiter}/sbin`,
    },
  });
}

function canApt() {
  return process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
}

/**
 * The editor tests drive a real browser. Browser builds cannot come from the npm registry
 * here, so Debian's chromium is installed with apt when it is missing (root machines only).
 */
const chromiumPath = '/usr/bin/chromium';
function ensureChromium() {
  if (existsSync(chromiumPath) || process.platform !== 'linux') return;
  if (!canApt()) {
    log(
      `${chromiumPath} is missing and cannot be installed here (needs root and apt-get); browser tests will fail`,
    );
    return;
  }
  log('installing Debian chromium for the editor browser tests');
  const started = Date.now();
  aptInstall(['chromium', 'fonts-dejavu-core']);
  log(`chromium ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The n8n queue-mode e2e (e2e/n8n/queue-mode) runs n8n's main and workers on Redis and
 * PostgreSQL, the database n8n recommends for queue mode. Neither comes from the npm registry:
 * Debian's packages are installed with apt when missing (root machines only). The e2e looks
 * for them with the same functions (queue-mode/services.mjs) and fails with its own message when
 * they are absent.
 */
const queueModePackages = [
  { name: 'redis-server', present: () => existsSync(redisServerBin) },
  // The server's initdb, not just the folder: Debian's postgresql-client alone (psql, present on
  // some fresh machines) also creates /usr/lib/postgresql/<version>/bin.
  { name: 'postgresql', present: () => postgresBinDir() !== undefined },
];
function ensureQueueModeServices() {
  if (process.platform !== 'linux') return;
  const missing = queueModePackages.filter((entry) => !entry.present()).map((e) => e.name);
  if (missing.length === 0) return;
  if (!canApt()) {
    log(
      `${missing.join(' and ')} missing and cannot be installed here (needs root and apt-get): the n8n queue-mode e2e cannot run and will fail`,
    );
    return;
  }
  log(`installing Debian ${missing.join(' and ')} for the n8n queue-mode e2e`);
  const started = Date.now();
  aptInstall(missing);
  log(`${missing.join(' and ')} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Whether `npm run bench` with these arguments runs scenario `id` (all unless `--only` leaves it out). */
function benchRuns(id, args) {
  const at = args.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
  if (at < 0) return true;
  const value = args[at].includes('=') ? args[at].slice('--only='.length) : (args[at + 1] ?? '');
  return value.split(',').some((entry) => entry.trim().toUpperCase() === id);
}

function turbo(args) {
  return run('pnpm', ['exec', 'turbo', 'run', ...args, '--ui=stream']);
}

/**
 * Vitest writes a JSON report per package test task (`.vitest-report.json`, and
 * `.vitest-report.<part>.json` for a part run on its own, such as core's storms); one closing line
 * sums them for people and CI.
 */
function reportPaths() {
  return workspaceFolders().flatMap((dir) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir))
          .filter((file) => /^\.vitest-report(\.[\w-]+)?\.json$/.test(file))
          .map((file) => join(root, dir, file))
      : [],
  );
}

const oneLine = (text) => text.replace(/\s+/g, ' ').slice(0, 600);

/** "file > test: first lines of the failure" for each failed test in a vitest JSON report. */
function failedTests(report) {
  const lines = [];
  for (const file of report.testResults ?? []) {
    const name = isAbsolute(file.name) ? relative(root, file.name) : file.name;
    for (const test of file.assertionResults ?? []) {
      if (test.status !== 'failed') continue;
      lines.push(`  ${name} > ${test.fullName}: ${oneLine((test.failureMessages ?? []).join(' '))}`);
    }
    // A file that failed to load has no assertion results, only its own message.
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) {
      lines.push(`  ${name}: ${oneLine(String(file.message ?? 'failed'))}`);
    }
  }
  return lines;
}

function summarize() {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const rows = [];
  const failures = [];
  for (const path of reportPaths()) {
    if (!existsSync(path)) continue;
    const report = JSON.parse(readFileSync(path, 'utf8'));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + (report.numTodoTests ?? 0);
    const part = /\.vitest-report\.([\w-]+)\.json$/.exec(path)?.[1];
    const name = `${path.split(/[\\/]/).at(-2)}${part ? ` (${part})` : ''}`;
    rows.push(`  ${name}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
    failures.push(...failedTests(report));
  }
  console.log(`\nTest summary per package:\n${rows.join('\n')}`);
  // CI keeps only the end of the log: name every failed test here, where it survives.
  if (failures.length > 0) console.log(`Failed tests:\n${failures.join('\n')}`);
  console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  return { passed, failed };
}

/**
 * The n8n e2e needs its own ~2 GB install of n8n (e2e/n8n/n8n-install.mjs). Started here, in the
 * background, it downloads and builds while the other packages lint and test, instead of holding
 * up the n8n package's e2e for 2-3 minutes; the e2e waits for it (its pid file) and checks its
 * stamp as before. Its output goes to e2e/n8n/.n8n-install.log; a failed one is redone in the
 * foreground by the e2e, which then prints why.
 */
function startN8nInstall() {
  const out = openSync(backgroundLogFile, 'w');
  const child = spawn(join(toolchainBin, 'node'), [join(e2eDir, 'n8n-install.mjs'), '--background'], {
    cwd: e2eDir,
    env,
    stdio: ['ignore', out, out],
  });
  // Written here too, so the e2e can never start before the child has written it itself.
  writeFileSync(backgroundPidFile, String(child.pid));
  child.unref();
  log(`installing n8n for the n8n e2e in the background (log: ${relative(root, backgroundLogFile)})`);
}

/**
 * The whole suite: builds, lint and type checks on both cores, then the tests in lanes
 * (scripts/test-lanes.mjs), then where the time went.
 */
async function testInLanes() {
  const checksStarted = Date.now();
  const usageFile = join(root, 'node_modules', '.checks-usage.json');
  const checked = run('node', [
    join(root, 'scripts', 'usage', 'measured.mjs'),
    usageFile,
    'pnpm',
    ...['exec', 'turbo', 'run', 'lint', 'typecheck', 'build', '--concurrency=2', '--continue', '--ui=stream'],
  ]);
  const checks = {
    wallSeconds: (Date.now() - checksStarted) / 1000,
    cpuSeconds: existsSync(usageFile) ? JSON.parse(readFileSync(usageFile, 'utf8')).cpuSeconds : undefined,
  };
  const tasks = testTasksOf(root, workspaceFolders());
  const tested = await runLanes(planTasks(tasks, log), {
    command: 'pnpm',
    args: (script, name) => ['exec', 'turbo', 'run', script, '--only', '--ui=stream', `--filter=${name}`],
    cwd: root,
    env,
  });
  return { status: checked || tested.status, checks, tasks: tested.rows };
}

function setup() {
  ensureToolchain();
  ensureDependencies();
}

const [task = 'test', ...rest] = process.argv.slice(2);

switch (task) {
  case 'setup': {
    setup();
    process.exit(turbo(['build']));
    break;
  }
  case 'test': {
    const started = Date.now();
    setup();
    startN8nInstall();
    ensureChromium();
    ensureQueueModeServices();
    for (const path of reportPaths()) rmSync(path, { force: true });
    clearFileUsage(root, workspaceFolders());
    let status;
    if (rest.length > 0) {
      status = turbo(['lint', 'typecheck', ...testScripts, '--concurrency=2', '--continue', ...rest]);
      printUsage({ tasks: [], files: fileUsage(root, workspaceFolders()) });
    } else {
      const lanes = await testInLanes();
      status = lanes.status;
      printUsage({
        tasks: lanes.tasks,
        files: fileUsage(root, workspaceFolders()),
        checks: lanes.checks,
        total: { wallSeconds: (Date.now() - started) / 1000, cpuSeconds: cpuSecondsWithChildren() },
      });
    }
    const { passed, failed } = summarize();
    console.log(`npm test finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    process.exit(status !== 0 || failed > 0 || passed === 0 ? status || 1 : 0);
    break;
  }
  case 'bench': {
    setup();
    // P13 runs n8n's queue mode on Redis and PostgreSQL, as the e2e does: installed the same way.
    if (benchRuns('P13', rest)) ensureQueueModeServices();
    // Build what the suite measures, then one runner prints the one table (bench/README.md).
    const status = turbo(['build', '--filter=@observation-service/bench...']);
    if (status !== 0) process.exit(status);
    process.exit(run(join(toolchainBin, 'node'), [join(root, 'bench', 'src', 'run.ts'), ...rest]));
    break;
  }
  case 'start':
  case 'demo:n8n': {
    setup();
    const status = turbo(['build']);
    if (status !== 0) process.exit(status);
    const script = task === 'start' ? ['demo.mjs'] : ['demo', 'n8n.mjs'];
    inForeground(join(toolchainBin, 'node'), [join(root, 'scripts', ...script), ...rest], {
      env,
      cwd: root,
      parent: startedUnder,
    });
    break;
  }
  case 'pnpm': {
    ensureToolchain();
    process.exit(run('pnpm', rest));
    break;
  }
  default:
    console.error(`unknown task "${task}": use setup, test, bench, start, demo:n8n or pnpm`);
    process.exit(2);
}
