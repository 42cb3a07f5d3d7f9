// Releases of the n8n package to a local registry (e2e/release/registry.mjs's Verdaccio), made the
// way release.yml makes them: `changeset version` turns changesets into a version and a
// changelog, then `changeset publish` publishes. Only the n8n package takes part: a workspace of
// its own holding the packed tarball (the build `npm test` made, at 0.0.0 as in the repository),
// the repository's changeset config and the pending changesets that name the package (the lines
// of other packages dropped). The first bump therefore gives the first version the release will
// give (0.1.0); a later one adds a changeset of its own (a patch: 0.1.1). No git clone and no
// install: the changesets CLI of the root workspace runs on that folder.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageName, root } from './n8n-install.mjs';

const changesetBin = join(root, 'node_modules', '.bin', 'changeset');

function run(command, args, cwd, env) {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** A pending changeset's text with only this package's line in its front matter, or undefined. */
function ownPart(text) {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!match) return undefined;
  const lines = match[1].split('\n').filter((line) => line.includes(`"${packageName}"`));
  return lines.length > 0 ? `---\n${lines.join('\n')}\n---\n${match[2]}` : undefined;
}

/**
 * A release workspace in `dir` with the tarball's package at its packed version, ready for
 * `publish()`. Provenance is off in its manifest (it needs the CI runner's identity token, see
 * registry.mjs's publishTarball).
 *
 * @param {string} dir a folder to create
 * @param {string} tarball `pnpm pack` of packages/n8n-nodes
 * @param {{ url: string, npmrc: string }} registry from startRegistry
 */
export function localRelease(dir, tarball, registry) {
  const packageDir = join(dir, 'packages', 'n8n-nodes');
  mkdirSync(packageDir, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
  const manifestFile = join(packageDir, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  if (manifest.publishConfig) delete manifest.publishConfig.provenance;
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'n8n-release-rehearsal', private: true, version: '0.0.0' }),
  );
  writeFileSync(join(dir, 'pnpm-workspace.yaml'), "packages:\n  - 'packages/*'\n");
  const changesets = join(dir, '.changeset');
  mkdirSync(changesets);
  cpSync(join(root, '.changeset', 'config.json'), join(changesets, 'config.json'));
  let pending = 0;
  for (const name of readdirSync(join(root, '.changeset'))) {
    if (!name.endsWith('.md') || name === 'README.md') continue;
    const own = ownPart(readFileSync(join(root, '.changeset', name), 'utf8'));
    if (!own) continue;
    writeFileSync(join(changesets, name), own);
    pending += 1;
  }
  const npmrc = join(dir, 'npmrc');
  writeFileSync(npmrc, registry.npmrc);
  const env = {
    ...process.env,
    npm_config_userconfig: npmrc,
    npm_config_registry: `${registry.url}/`,
    // npm's cache and logs stay in this folder: nothing of a test run in ~/.npm.
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_logs_dir: join(dir, 'npm-logs'),
  };
  return {
    dir,
    pending,
    /** The package's version in the workspace now. */
    version: () => JSON.parse(readFileSync(manifestFile, 'utf8')).version,
    /** The newest entry of the package's changelog (what `changeset version` wrote last). */
    changelogEntry: () => readFileSync(join(packageDir, 'CHANGELOG.md'), 'utf8').split(/\n## /)[1] ?? '',
    /**
     * `changeset version` then `changeset publish`; `change` adds a changeset first (its bump
     * and summary). Resolves to the version the registry now holds as `latest`.
     */
    publish(change) {
      if (change)
        writeFileSync(
          join(changesets, `rehearsal-${change.bump}-${Date.now()}.md`),
          `---\n"${packageName}": ${change.bump}\n---\n\n${change.summary}\n`,
        );
      run(changesetBin, ['version'], dir, env);
      const output = run(changesetBin, ['publish'], dir, env);
      const latest = JSON.parse(run('npm', ['view', packageName, 'dist-tags.latest', '--json'], dir, env));
      if (latest !== this.version())
        throw new Error(
          `the registry holds ${latest}, the workspace ${this.version()}:\n${output.slice(-1500)}`,
        );
      return latest;
    },
  };
}
