import { execFileSync } from 'node:child_process';
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
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { publishedPackageProblems } from '../../../scripts/package-hygiene.mjs';
import { loadPackage, packageDir } from './harness/n8n-engine.mts';

const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));

test('package.json follows the community-node conventions with no runtime dependencies', () => {
  expect(pkg.keywords).toContain('n8n-community-node-package');
  expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
  expect(pkg.n8n.strict).toBe(true);
  expect(pkg.dependencies ?? {}).toEqual({});
  // n8n's template declares n8n-workflow as a peer; optional, so that `npm install` in
  // ~/.n8n/nodes (the README's npm route) does not fetch a second n8n-workflow: n8n brings its own.
  expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
  expect(pkg.peerDependenciesMeta).toEqual({ 'n8n-workflow': { optional: true } });
  for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials])
    expect(existsSync(join(packageDir, file))).toBe(true);
});

test('the built files require nothing but n8n-workflow and the vendored core', () => {
  // n8n Cloud's rules allow no other module (test/community-scanner.test.mts runs n8n's scanner).
  const seen = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js')) {
        for (const match of readFileSync(path, 'utf8').matchAll(/require\("([^"]+)"\)/g))
          seen.add(match[1] ?? '');
      }
    }
  };
  walk(join(packageDir, 'dist'));
  expect([...seen].filter((name) => !name.startsWith('.')).sort()).toEqual(['n8n-workflow']);
  expect([...seen].filter((name) => name.startsWith('.'))).toEqual(['../../vendor/observation-core.js']);
});

test("n8n's package loader finds the three nodes, the credential, codex and light/dark icons", async () => {
  const loader = await loadPackage();
  // One entry per node version; the loader keeps short names, n8n prefixes them with the package name.
  const nodes = loader.types.nodes.map((node) => `${node.name}@${node.version}`).sort();
  expect(nodes).toEqual([
    'observation@1',
    'observationTaskTrigger@1',
    'observationTaskTrigger@2',
    'observationTrigger@1',
  ]);
  const polling = loader.types.nodes.find(
    (node) => node.name === 'observationTaskTrigger' && node.version === 2,
  );
  expect(polling?.polling).toBe(true);
  // n8n adds Poll Times to every polling node it loads.
  expect(polling?.properties[0]?.name).toBe('pollTimes');
  expect(loader.packageName).toBe('@observation-service/n8n-nodes-observation');
  expect(loader.types.credentials.map((credential) => credential.name)).toEqual(['observationApi']);
  for (const node of loader.types.nodes) {
    expect(node.codex?.categories).toContain('Analytics');
    const icon = (node.iconUrl ?? node.icon) as { light: string; dark: string };
    expect(icon.light).not.toBe(icon.dark);
  }
  const action = loader.types.nodes.find((node) => node.name === 'observation');
  expect(action?.usableAsTool).toBe(true);
  for (const file of ['dist/icons/observation.svg', 'dist/icons/observation.dark.svg']) {
    expect(existsSync(join(packageDir, file))).toBe(true);
  }
});

test("the node picker's Observation entry describes the actions and the trigger it merges", async () => {
  const loader = await loadPackage();
  // n8n's node creator (generateMergedNodesAndActions, 2.41) merges a trigger into the node whose
  // name is the trigger's without "Trigger" and gives the merged entry the TRIGGER's description:
  // it must read right for both, not as the trigger alone.
  const nodes = loader.types.nodes;
  const entries = new Map(
    nodes.filter((node) => !node.group.includes('trigger')).map((node) => [node.name, { ...node }]),
  );
  for (const trigger of nodes.filter((node) => node.group.includes('trigger'))) {
    const merged = entries.get(trigger.name.replace('Trigger', ''));
    if (merged) merged.description = trigger.description;
    else entries.set(trigger.name, { ...trigger });
  }
  expect([...entries.keys()].sort()).toEqual(['observation', 'observationTaskTrigger']);
  const app = entries.get('observation')?.description ?? '';
  expect(app).toMatch(/start/i);
  expect(app).toMatch(/read/i);
  expect(app).toMatch(/tasks/);
  expect(app).toMatch(/media/);
});

test('secret credential fields are password fields', async () => {
  const loader = await loadPackage();
  const credential = loader.types.credentials[0];
  const secret = credential?.properties.filter((property) =>
    ['accessToken', 'password'].includes(property.name),
  );
  expect(secret?.map((property) => property.typeOptions?.password)).toEqual([true, true]);
});

test('the packed tarball is clean for npm, publint and attw (LICENSE, main, bugs/author/repository, absolute README links)', async () => {
  expect(await publishedPackageProblems(packageDir)).toEqual([]);
}, 120_000);

/** Bytes under `dir`, every file counted. */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? sizeOf(path) : statSync(path).size;
  }
  return total;
}

test("the README's npm route installs the packed tarball alone (no peer fetched, no install script), examples included", () => {
  const work = mkdtempSync(join(tmpdir(), 'observation-n8n-npm-route-'));
  try {
    const packDir = join(work, 'pack');
    mkdirSync(packDir);
    execFileSync('pnpm', ['pack', '--pack-destination', packDir], { cwd: packageDir, stdio: 'ignore' });
    const tarball = readdirSync(packDir).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error('pnpm pack wrote no tarball');
    // ~/.n8n/nodes as a user has it; --offline: anything npm would have to download fails the install.
    const nodesDir = join(work, 'nodes');
    mkdirSync(nodesDir);
    writeFileSync(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true }));
    const output = execFileSync(
      'npm',
      ['install', join(packDir, tarball), '--offline', '--audit=false', '--fund=false', '--loglevel=warn'],
      { cwd: nodesDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(output).not.toMatch(/install script|gyp|deprecated/i);
    const modules = join(nodesDir, 'node_modules');
    expect(readdirSync(modules).filter((name) => !name.startsWith('.'))).toEqual(['@observation-service']);
    expect(existsSync(join(modules, 'n8n-workflow'))).toBe(false);
    // The whole install is the package itself: well under a megabyte or two, not 144 MB.
    expect(sizeOf(modules)).toBeLessThan(5 * 1024 * 1024);
    // The README tells users to import these: they come with the package.
    const installed = join(modules, '@observation-service', 'n8n-nodes-observation');
    expect(readdirSync(join(installed, 'examples')).sort()).toEqual(
      readdirSync(join(packageDir, 'examples')).sort(),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}, 120_000);
