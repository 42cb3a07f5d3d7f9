// A local npm registry for the release rehearsal and the install-by-name tests: Verdaccio (from
// the npm registry, a dev dependency here) on loopback, its storage in a folder of the caller's,
// one user to publish as. Packages it does not hold come from the machine's registry (its
// uplink), so installing ours by name also installs their dependencies as users get them.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from '../../scripts/free-port.mjs';

const require = createRequire(import.meta.url);
const verdaccioBin = join(dirname(require.resolve('verdaccio/package.json')), 'bin', 'verdaccio');

/** The registry the machine's npm uses (where our packages' own dependencies come from). */
function upstream() {
  const configured = process.env.npm_config_registry ?? process.env.NPM_CONFIG_REGISTRY;
  return configured && /^https?:\/\//.test(configured) ? configured : 'https://registry.npmjs.org/';
}

async function waitForPing(url, child, output, timeoutMs = 60_000) {
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}):\n${output()}`);
    try {
      if ((await fetch(`${url}/-/ping`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs)
      throw new Error(`verdaccio did not answer within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Starts Verdaccio with its storage in `dir` and adds a user. Resolves to its URL, the user's
 * token, an `.npmrc` body that publishes there, and `stop()`.
 */
export async function startRegistry(dir) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = join(dir, 'config.yaml');
  const access = '    access: $all\n    publish: $authenticated\n    unpublish: $authenticated\n';
  writeFileSync(
    config,
    [
      `storage: ${join(dir, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(dir, 'htpasswd')}`,
      '    max_users: 10',
      'uplinks:',
      '  upstream:',
      `    url: ${upstream()}`,
      '    timeout: 60s',
      'packages:',
      // Ours are never looked up upstream: what the rehearsal published is all there is.
      "  '@observation-service/*':",
      access,
      "  '**':",
      `${access}    proxy: upstream`,
      'log: { type: stdout, format: pretty, level: warn }',
      'publish:',
      '  allow_offline: true',
      '',
    ].join('\n'),
  );
  let log = '';
  const child = spawn(process.execPath, [verdaccioBin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  child.stdout.on('data', (chunk) => {
    log += chunk;
  });
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitForPing(url, child, () => log);
    const user = 'release-rehearsal';
    const response = await fetch(`${url}/-/user/org.couchdb.user:${user}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: user, password: 'local-registry-only', type: 'user', roles: [] }),
    });
    const body = await response.json();
    if (!response.ok || typeof body.token !== 'string')
      throw new Error(`verdaccio refused the user: HTTP ${response.status} ${JSON.stringify(body)}`);
    const npmrc = `registry=${url}/\n//127.0.0.1:${port}/:_authToken=${body.token}\n`;
    return { url, token: body.token, npmrc, log: () => log, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Publishes a packed tarball (`pnpm pack`) to the registry as it is, but for npm provenance: it
 * needs the identity token of the CI runner that release.yml has, and a package's
 * `publishConfig.provenance` wins over any setting, so it is turned off in an unpacked copy.
 * `version`, when given, replaces the packed one there (a build of an earlier commit, still at
 * 0.0.0, published as the release it stands for). Returns the published name and version.
 */
export function publishTarball(registry, tarball, workDir, version) {
  const dir = mkdtempSync(join(workDir, 'publish-'));
  execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  const folder = join(dir, 'package');
  const manifestFile = join(folder, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  if (manifest.publishConfig) delete manifest.publishConfig.provenance;
  if (version) manifest.version = version;
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  const npmrc = join(dir, 'npmrc');
  writeFileSync(npmrc, registry.npmrc);
  execFileSync('npm', ['publish', folder, '--access', 'public'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    // npm's cache and logs in the caller's folder too: nothing of a test run stays in ~/.npm.
    env: {
      ...process.env,
      npm_config_userconfig: npmrc,
      npm_config_registry: `${registry.url}/`,
      npm_config_cache: join(dir, 'npm-cache'),
      npm_config_logs_dir: join(dir, 'npm-logs'),
    },
  });
  return { name: manifest.name, version: manifest.version };
}
