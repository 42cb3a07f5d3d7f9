// The package on each host of the cluster the way n8n documents it for queue mode: workers do not
// take community packages from the main's Community nodes screen, so each worker gets
// `npm install <package>` in the nodes folder of its n8n user folder (`~/.n8n/nodes`), from the
// registry the package is published to. Here that registry is a local Verdaccio holding the
// first version, 0.1.0, made by a changeset bump (../local-release.mjs, as the community install
// e2e does); the main is installed the same way (its screen would need n8n's custom registry
// licence, see ../community-install.mjs, which tests that screen).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRegistry } from '../../release/registry.mjs';
import { localRelease } from '../local-release.mjs';
import { packageName, packTarball } from '../n8n-install.mjs';

/**
 * Publishes 0.1.0 to a registry of its own, runs `npm install` in `<folder>/.n8n/nodes` of each
 * folder, and stops the registry. Resolves to each folder's installed version and the address
 * npm fetched it from (its lockfile), by folder name.
 *
 * @param {string} workDir a folder of the caller's (the registry and npm's cache go there)
 * @param {Record<string, string>} folders n8n user folders by name
 * @param {Record<string, string>} env
 */
export async function installFromRegistry(workDir, folders, env) {
  const dir = join(workDir, 'registry');
  mkdirSync(dir, { recursive: true });
  const registry = await startRegistry(dir);
  try {
    const release = localRelease(
      join(workDir, 'release'),
      packTarball(join(workDir, 'pack'), { env }),
      registry,
    );
    const version = release.publish();
    const installed = {};
    for (const [name, folder] of Object.entries(folders)) {
      const nodes = join(folder, '.n8n', 'nodes');
      mkdirSync(nodes, { recursive: true });
      execFileSync(
        'npm',
        [
          'install',
          `${packageName}@${version}`,
          '--ignore-scripts',
          '--no-audit',
          '--no-fund',
          // The lockfile names where npm fetched the package (the check below), whatever the
          // machine's npmrc says.
          '--omit-lockfile-registry-resolved=false',
        ],
        {
          cwd: nodes,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...env,
            npm_config_registry: `${registry.url}/`,
            npm_config_cache: join(dir, 'npm-cache'),
            npm_config_logs_dir: join(dir, 'npm-logs'),
          },
        },
      );
      const manifest = join(nodes, 'node_modules', ...packageName.split('/'), 'package.json');
      const lock = join(nodes, 'package-lock.json');
      const resolved = existsSync(lock)
        ? JSON.parse(readFileSync(lock, 'utf8')).packages?.[`node_modules/${packageName}`]?.resolved
        : undefined;
      installed[name] = {
        version: existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined,
        fromRegistry: typeof resolved === 'string' && resolved.startsWith(`${registry.url}/`),
      };
    }
    return { version, installed };
  } finally {
    await registry.stop();
  }
}
