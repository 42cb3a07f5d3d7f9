#!/usr/bin/env node
// Packs the package as it would be published (pnpm pack: workspace versions resolved), unpacks
// the tarball and runs the flow library's scorecard (`node-red-dev validate`) on it.
// Usage: node scripts/scorecard.mjs   (exit code 1 when a check fails)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(packageDir, 'package.json'));

function sizeOf(dir) {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = sizeOf(path);
      bytes += inner.bytes;
      files += inner.files;
    } else {
      bytes += statSync(path).size;
      files += 1;
    }
  }
  return { bytes, files };
}

/**
 * Packs, unpacks and validates. Returns the scorecard (check id → { test, … }), the validator's
 * output and warnings, the failed check ids and the tarball's size.
 */
export function runScorecard() {
  const work = mkdtempSync(join(tmpdir(), 'observation-scorecard-'));
  try {
    execFileSync('pnpm', ['pack', '--pack-destination', work], { cwd: packageDir, stdio: 'pipe' });
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error('pnpm pack wrote no tarball');
    const packedBytes = statSync(join(work, tarball)).size;
    execFileSync('tar', ['xzf', tarball], { cwd: work });
    const unpacked = join(work, 'package');
    const output = join(work, 'scorecard.json');
    const cli = join(dirname(require.resolve('node-red-dev/package.json')), 'bin', 'run');
    // node-red-dev prints passes on stdout and its warnings (the reasons of failed checks) on
    // stderr; both are kept.
    const run = spawnSync(
      process.execPath,
      [
        '-r',
        join(packageDir, 'scripts', 'offline-catalogue.cjs'),
        cli,
        'validate',
        '-p',
        unpacked,
        '-o',
        output,
      ],
      { cwd: unpacked, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
    );
    if (run.error) throw run.error;
    const log = run.stdout;
    const warnings = run.stderr;
    if (run.status !== 0 || !existsSync(output)) {
      throw new Error(`node-red-dev validate failed (exit ${run.status}):\n${log}\n${warnings}`);
    }
    const scorecard = JSON.parse(readFileSync(output, 'utf8'));
    const failed = Object.entries(scorecard)
      .filter(([id, result]) => id !== 'package' && result && result.test === false)
      .map(([id]) => id);
    const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
    return { scorecard, log, warnings, failed, manifest, packedBytes, unpacked: sizeOf(unpacked) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = runScorecard();
  console.log(result.log);
  if (result.warnings) console.log(result.warnings);
  console.log(JSON.stringify(result.scorecard, null, 2));
  console.log(
    `tarball: ${(result.packedBytes / 1024).toFixed(1)} KiB packed, ${(result.unpacked.bytes / 1024).toFixed(1)} KiB in ${result.unpacked.files} files unpacked`,
  );
  console.log(
    result.failed.length === 0 ? 'scorecard: no failures' : `scorecard: failed ${result.failed.join(', ')}`,
  );
  process.exit(result.failed.length === 0 ? 0 : 1);
}
