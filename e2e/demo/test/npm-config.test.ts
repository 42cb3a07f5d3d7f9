import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './demo-process.js';

/**
 * `npm start` and `npm test` go through npm first, and npm reads the repository's .npmrc: any
 * pnpm-only key there (auto-install-peers, link-workspace-packages) made npm print an
 * "Unknown project config" warning before the set-up even began. pnpm's settings now live in
 * pnpm-workspace.yaml; this runs the same npm entry (`npm run …` → scripts/run.mjs → pnpm) and
 * checks that npm warns about nothing and pnpm still has its settings.
 */
describe("npm start's set-up prints no npm warning, and pnpm keeps its settings", () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'npm-config-'));
    const userConfig = join(dir, 'npmrc');
    writeFileSync(userConfig, '');
    // A user's shell: no npm_config_* from the pnpm that runs this test (npm reads those too),
    // and an empty user .npmrc, so only what the repository itself holds can make npm warn.
    env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !/^npm_(config|package|lifecycle)_/i.test(key)),
    );
    env.NPM_CONFIG_USERCONFIG = userConfig;
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function npm(args: string[]) {
    const result = spawnSync('npm', args, { cwd: repoRoot, env, encoding: 'utf8', timeout: 60_000 });
    if (result.error) throw result.error;
    return result;
  }

  for (const setting of ['link-workspace-packages', 'auto-install-peers']) {
    it(`pnpm reads ${setting}=true from pnpm-workspace.yaml, with no npm warning`, () => {
      const result = npm(['run', 'pnpm', '--', 'config', 'get', setting]);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/npm warn/i);
      expect(result.stdout.trim().split('\n').at(-1)).toBe('true');
    });
  }
});
