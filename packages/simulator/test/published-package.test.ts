import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { publishedPackageProblems } from '../../../scripts/package-hygiene.mjs';

test('the packed tarball is clean for npm, publint and attw (LICENSE, main, bugs/author/repository, absolute README links)', async () => {
  const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
  expect(await publishedPackageProblems(packageDir)).toEqual([]);
}, 120_000);
