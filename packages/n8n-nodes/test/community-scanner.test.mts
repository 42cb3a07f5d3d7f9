import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { packageDir } from './harness/n8n-engine.mts';

interface ScanResult {
  passed: boolean;
  message?: string;
  details?: string;
  packedBytes?: number;
}

/** The scanner's analysis in a child process (see harness/community-scan.mjs for what is run). */
function scan(mode: 'source' | 'tarball'): ScanResult {
  const script = join(packageDir, 'test', 'harness', 'community-scan.mjs');
  // The scanner's rules change behaviour under NODE_ENV=test (their own rule tests), which vitest
  // sets: the scan runs with the environment n8n's verification has, without it.
  const { NODE_ENV: _testMode, ...env } = process.env;
  const out = execFileSync(process.execPath, [script, mode], {
    cwd: packageDir,
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as ScanResult;
}

// On failure the diff shows `details`: the scanner's report with each file, line, message and
// rule (e.g. `@n8n/community-nodes/no-restricted-globals`).

test("n8n's community-package scanner passes on the node and credential sources", () => {
  const { passed, message, details } = scan('source');
  expect({ passed, message, details }).toEqual({ passed: true });
}, 180_000);

test("n8n's community-package scanner passes on the packed tarball's JavaScript and package.json", () => {
  const { passed, message, details, packedBytes } = scan('tarball');
  expect({ passed, message, details }).toEqual({ passed: true });
  expect(packedBytes).toBeGreaterThan(10_000);
}, 180_000);
