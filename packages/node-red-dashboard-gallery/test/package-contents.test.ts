import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from './harness/dashboard-red.js';

/** Every file path under `dir`, relative to it. */
function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

describe('the package as published (pnpm pack)', () => {
  let work: string;
  let files: string[];
  let manifest: Record<string, unknown>;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'gallery-pack-'));
    execFileSync('pnpm', ['pack', '--pack-destination', work], { cwd: packageRoot, stdio: 'pipe' });
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error('pnpm pack wrote no tarball');
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
    files = listFiles(join(work, 'package'));
    manifest = JSON.parse(readFileSync(join(work, 'package', 'package.json'), 'utf8'));
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('holds what Node-RED and Dashboard 2 load, and nothing of the sources or tests', () => {
    const nodeRed = manifest['node-red'] as { nodes: Record<string, string> };
    const dashboard = manifest['node-red-dashboard-2'] as { widgets: Record<string, { output: string }> };
    for (const file of Object.values(nodeRed.nodes)) {
      expect(files).toContain(file);
      expect(files).toContain(file.replace(/\.js$/, '.html'));
    }
    for (const [type, widget] of Object.entries(dashboard.widgets)) {
      expect(type).toBe('ui-observation-gallery');
      expect(files).toContain(`resources/${widget.output}`);
    }
    expect(files).toContain('README.md');
    // Node-RED's Import → Examples menu and the flow library read examples/.
    expect(
      files.filter((file) => file.startsWith('examples/') && file.endsWith('.json')).length,
    ).toBeGreaterThan(0);
    expect(files.filter((file) => /^(src|test|docs)\//.test(file) || file.endsWith('.map'))).toEqual([]);
  });

  it('is named as Dashboard 2 finds third-party widgets, and depends on the Observation nodes only', () => {
    expect(String(manifest.name)).toContain('node-red-dashboard-2-');
    expect(manifest.keywords).toEqual(expect.arrayContaining(['node-red', 'node-red-dashboard-2']));
    // The nodes it works with (observation events, observation-server) are another Node-RED
    // package's: npm, and so the palette manager, installs it along (the workspace version as a
    // caret range). Not in `node-red.dependencies`: Node-RED hides the nodes of a module listed
    // there from the editor unless the user installed it too (gallery-node.test.ts checks they show).
    const observation = JSON.parse(
      readFileSync(join(packageRoot, '..', 'node-red-nodes', 'package.json'), 'utf8'),
    );
    expect(manifest.dependencies).toEqual({ [observation.name]: `^${observation.version}` });
    expect(manifest['node-red']).not.toHaveProperty('dependencies');
    // The widget uses the dashboard's own Vue (window.Vue), not a bundled copy.
    const umd = readFileSync(join(work, 'package', 'resources', 'ui-observation-gallery.umd.js'), 'utf8');
    expect(umd).toMatch(/\.Vue\b/);
    expect(umd).not.toContain('[Vue warn]');
    expect(umd.length).toBeLessThan(40_000);
  });
});
