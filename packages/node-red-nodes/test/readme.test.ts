import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from './harness/node-red.js';

const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');

it("the README's list of what installs with the package is package.json's dependencies", () => {
  // The paragraph that tells users what the package pulls from npm (it once named pngjs, a
  // test-only dependency, after core had moved to its own PNG codec over fflate).
  const paragraph = readme
    .split(/\n\s*\n/)
    .find((text) => /Everything it needs installs from the npm registry/.test(text));
  expect(paragraph).toBeDefined();
  const named = [...(paragraph ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]);
  expect(named.sort()).toEqual(Object.keys(pkg.dependencies).sort());
});
