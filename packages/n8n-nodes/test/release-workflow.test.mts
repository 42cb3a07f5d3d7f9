import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { parse } from 'yaml';
import { packageDir } from './harness/n8n-engine.mts';

// The release workflow cannot run here (it needs GitHub's OIDC token and the npm registry), so
// its syntax and the essentials n8n's verification depends on are checked: npm provenance is
// the scanner's first check, and only a GitHub Actions run with `id-token: write` can make it.

const root = join(packageDir, '..', '..');
const workflowText = readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8');
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

const workflow = parse(workflowText, { prettyErrors: true, strict: true }) as {
  on: { push: { branches: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { 'runs-on': string; steps: Step[] }>;
};
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);

test('release.yml is valid YAML with a job on a GitHub-hosted runner, run on pushes to main', () => {
  expect(workflow.on.push.branches).toEqual(['main']);
  for (const job of Object.values(workflow.jobs)) expect(job['runs-on']).toBe('ubuntu-latest');
  for (const step of steps) expect(Boolean(step.uses) !== Boolean(step.run)).toBe(true);
});

test('it may mint the OIDC token npm provenance is signed with, and write version commits', () => {
  expect(workflow.permissions).toMatchObject({
    'id-token': 'write',
    contents: 'write',
    'pull-requests': 'write',
  });
});

test('it installs from the lockfile on Node ≥ 22 with the npm registry, then builds', () => {
  const setupNode = steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
  expect(Number(setupNode?.with?.['node-version'])).toBeGreaterThanOrEqual(22);
  expect(setupNode?.with?.['registry-url']).toBe('https://registry.npmjs.org');
  expect(steps.some((step) => step.uses?.startsWith('pnpm/action-setup@'))).toBe(true);
  const runs = steps.map((step) => step.run ?? '');
  expect(runs.findIndex((run) => run.includes('install --frozen-lockfile'))).toBeLessThan(
    runs.findIndex((run) => run.includes('build')),
  );
});

test('changesets/action publishes with provenance through the root release script', () => {
  const changesets = steps.find((step) => step.uses?.startsWith('changesets/action@'));
  expect(changesets).toBeDefined();
  const publish = String(changesets?.with?.publish ?? '');
  const script = /^pnpm run ([\w:-]+)$/.exec(publish)?.[1] ?? '';
  expect(rootPackage.scripts[script]).toMatch(/changeset publish/);
  const version = /^pnpm run ([\w:-]+)$/.exec(String(changesets?.with?.version ?? ''))?.[1] ?? '';
  expect(rootPackage.scripts[version]).toMatch(/changeset version/);
  expect(changesets?.env?.NPM_CONFIG_PROVENANCE).toBe('true');
  // Tokens come from the repository's secrets, never from the file.
  // (GitHub's expression syntax, written with a `$` prefix variable so it reads as plain text.)
  const expression = (name: string) => `${'$'}{{ secrets.${name} }}`;
  expect(changesets?.env?.NODE_AUTH_TOKEN).toBe(expression('NPM_TOKEN'));
  expect(changesets?.env?.GITHUB_TOKEN).toBe(expression('GITHUB_TOKEN'));
});

test('every publishable package asks npm for provenance itself too', () => {
  const packagesDir = join(root, 'packages');
  const published = readdirSync(packagesDir)
    .map((name) => JSON.parse(readFileSync(join(packagesDir, name, 'package.json'), 'utf8')))
    .filter((pkg) => pkg.private !== true);
  expect(published.map((pkg) => pkg.name).sort()).toEqual([
    '@observation-service/core',
    '@observation-service/n8n-nodes-observation',
    '@observation-service/node-red-dashboard-2-observation-gallery',
    '@observation-service/node-red-observation',
    '@observation-service/simulator',
  ]);
  for (const pkg of published)
    expect({ [pkg.name]: pkg.publishConfig }).toEqual({ [pkg.name]: { access: 'public', provenance: true } });
});
