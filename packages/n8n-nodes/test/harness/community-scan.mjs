// Runs n8n's community-package scanner analysis on this package, in its own Node process (the
// scanner loads TypeScript 7 and its ESLint parser, which must not go through vitest's module
// loader). Usage: node community-scan.mjs source|tarball → prints one JSON line:
// { passed, message?, details?, packedBytes? }; `details` is ESLint's stylish report (file,
// line, message and rule of every problem).
//
// n8n verifies a package with `analyzePackageByName`: a provenance check against the registry,
// then the two lint legs below, exactly as it calls them (`analyzePackage` with
// SOURCE_FILE_PATTERNS on the attested source, with `**/*.js` + package.json on the published
// tarball). Only the provenance check, and the download of the published package it needs, is
// skipped: it needs the package published on the registry with an attestation, which only the
// release workflow (.github/workflows/release.yml, npm provenance) produces.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';
import { packTarball } from '../../../../e2e/n8n/n8n-install.mjs';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function scanTarball() {
  const work = mkdtempSync(join(tmpdir(), 'n8n-scan-'));
  try {
    const tarball = packTarball(join(work, 'pack'));
    const unpacked = join(work, 'package');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
    const result = await analyzePackage(unpacked, ['**/*.js', 'package.json']);
    return { ...result, packedBytes: statSync(tarball).size };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const mode = process.argv[2];
const result =
  mode === 'source'
    ? await analyzePackage(packageDir, SOURCE_FILE_PATTERNS)
    : mode === 'tarball'
      ? await scanTarball()
      : { passed: false, message: `unknown mode ${mode}: use source or tarball` };
const { passed, message, details, packedBytes } = result;
process.stdout.write(`${JSON.stringify({ passed, message, details, packedBytes })}\n`);
