import { execFileSync } from 'node:child_process';
import {
  cpSync,
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
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
// @ts-expect-error: plain JavaScript module shared with the install-by-name e2e
import { startRegistry } from '../registry.mjs';

// The release as .github/workflows/release.yml makes it, rehearsed on a clone of this commit:
// `pnpm run version-packages` (changeset version) turns the pending changesets into versions and
// changelogs, then `changeset publish` (the publishing half of `pnpm run release`) publishes every
// public package to a local Verdaccio on loopback. The built `dist` folders come from this
// workspace's build (`npm test` builds before it tests), which is what release.yml's `pnpm run
// build` makes of the same sources.

const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The first versions, chosen (README, "Versions"): 0.1.0 for every package. 0.x because the API
 * may still change after real deployments are met; not 0.0.x, which npm's caret ranges pin to the
 * exact patch, so users would get no fix without editing their install.
 */
const firstVersions: Record<string, string> = {
  '@observation-service/core': '0.1.0',
  '@observation-service/n8n-nodes-observation': '0.1.0',
  '@observation-service/node-red-observation': '0.1.0',
  '@observation-service/node-red-dashboard-2-observation-gallery': '0.1.0',
  '@observation-service/simulator': '0.1.0',
};

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
}

let work: string;
let clone: string;
let registry: { url: string; npmrc: string; stop: () => Promise<void>; log: () => string };
let npmrc: string;
const folders = readdirSync(join(root, 'packages'));

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
}

function manifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'observation-release-'));
  registry = await startRegistry(work);
  npmrc = join(work, 'npmrc');
  writeFileSync(npmrc, registry.npmrc);
  clone = join(work, 'repo');
  run('git', ['clone', '--quiet', '--no-hardlinks', root, clone], work);
  // release.yml's install step (from pnpm's store, which `npm test` filled), and its build step's
  // output: this workspace's build of the same sources.
  run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--ignore-scripts'], clone);
  for (const folder of folders) {
    const from = join(root, 'packages', folder, 'dist');
    if (existsSync(from)) cpSync(from, join(clone, 'packages', folder, 'dist'), { recursive: true });
  }
  // A clone and an offline install took more than 120 s on a runner loaded by the other lanes (a
  // red with the install still running). Neither step reports progress to wait on, so the limit
  // is generous; a hung install still ends the run well within CI's.
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('release rehearsal', () => {
  test('changeset version gives every public package its chosen first version, and changeset publish puts them in the registry', () => {
    const versioned = run('pnpm', ['run', 'version-packages'], clone);
    expect(
      readdirSync(join(clone, '.changeset')).filter((name) => name.endsWith('.md') && name !== 'README.md'),
    ).toEqual([]);
    const manifests = folders.map((folder) => manifest(join(clone, 'packages', folder)));
    const published = manifests.filter((entry) => !entry.private);
    expect(Object.fromEntries(published.map((entry) => [entry.name, entry.version]))).toEqual(firstVersions);

    // Provenance needs the identity token of GitHub's runner (release.yml has it), and npm lets
    // `publishConfig.provenance` win over any setting: off here in the clone's manifests alone.
    for (const folder of folders) {
      const file = join(clone, 'packages', folder, 'package.json');
      const data = JSON.parse(readFileSync(file, 'utf8')) as { publishConfig?: { provenance?: boolean } };
      if (data.publishConfig?.provenance !== true) continue;
      delete data.publishConfig.provenance;
      writeFileSync(file, JSON.stringify(data, null, 2));
    }
    const output = run('pnpm', ['exec', 'changeset', 'publish'], clone, {
      npm_config_userconfig: npmrc,
      npm_config_registry: `${registry.url}/`,
    });
    for (const entry of published) {
      const tags = run('npm', ['view', entry.name, 'dist-tags', '--json'], work, {
        npm_config_userconfig: npmrc,
        npm_config_registry: `${registry.url}/`,
      });
      expect(JSON.parse(tags), `${entry.name}: ${output.slice(-2000)}\n${versioned.slice(-500)}`).toEqual({
        latest: entry.version,
      });
    }
  }, 300_000);

  test("each published package's changelog opens with its first version, grouped, in plain words", () => {
    for (const folder of folders) {
      const dir = join(clone, 'packages', folder);
      if (manifest(dir).private) continue;
      const changelog = readFileSync(join(dir, 'CHANGELOG.md'), 'utf8');
      const first = changelog.split(/\n## /)[1] ?? '';
      expect(first.startsWith('0.1.0\n'), folder).toBe(true);
      expect(first, folder).toMatch(/### (Minor|Patch) Changes/);
      // Nothing was released before it: nothing to break, no migration from an earlier version,
      // and no names only the team knows (issue numbers, source files).
      expect(first, folder).not.toMatch(/BREAKING|migration|\bissue \d+|\b[\w-]+\.(ts|mjs|mts)\b/i);
    }
  });

  test('installed by name from the registry, each package comes with its dependencies', () => {
    const project = join(work, 'user-project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name":"user-project","version":"1.0.0","private":true}');
    run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...Object.keys(firstVersions)],
      project,
      { npm_config_userconfig: npmrc, npm_config_registry: `${registry.url}/` },
    );
    for (const [name, version] of Object.entries(firstVersions)) {
      expect(manifest(join(project, 'node_modules', name)).version).toBe(version);
    }
  }, 300_000);

  test('release.yml runs the same steps in the same order: install, build, version, publish', () => {
    const workflow = parse(readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8')) as {
      jobs: { release: { steps: Array<{ run?: string; uses?: string; with?: Record<string, string> }> } };
    };
    const steps = workflow.jobs.release.steps;
    const commands = steps.map((step) => step.run ?? step.uses?.split('@')[0]);
    expect(commands.indexOf('pnpm install --frozen-lockfile')).toBeLessThan(
      commands.indexOf('pnpm run build'),
    );
    const changesets = steps.find((step) => step.uses?.startsWith('changesets/action@'));
    expect(commands.indexOf('pnpm run build')).toBeLessThan(steps.indexOf(changesets as never));
    expect(changesets?.with).toMatchObject({
      version: 'pnpm run version-packages',
      publish: 'pnpm run release',
    });
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts['version-packages']).toBe('changeset version');
    expect(scripts.release).toBe('turbo run build && changeset publish');
  });
});
