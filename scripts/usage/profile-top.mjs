#!/usr/bin/env node
// `node scripts/usage/profile-top.mjs <folder> [rows]`: where the CPU of the test files profiled
// with OBSERVATION_TEST_PROFILE=<folder> went, as self time summed over every profile, by source
// file and by function (idle time left out). Self time: a function's own work, and that of the
// built-ins it calls (JSON.stringify, say), not that of the functions it calls.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [folder, rowsArg] = process.argv.slice(2);
if (!folder) {
  console.error('usage: node scripts/usage/profile-top.mjs <folder of .cpuprofile files> [rows]');
  process.exit(2);
}
const rows = Number(rowsArg ?? 25);
const byFile = new Map();
const byFunction = new Map();
let busy = 0;
const add = (map, key, seconds) => map.set(key, (map.get(key) ?? 0) + seconds);
/** A script's place, short: the package path after node_modules/.pnpm or packages/. */
const shortUrl = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\/\.pnpm\/([^/]+)\/.*/, '$1')
    .replace(/.*\/packages\//, '');

for (const name of readdirSync(folder).filter((entry) => entry.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(folder, name), 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  profile.samples.forEach((id, index) => {
    const frame = nodes.get(id);
    const seconds = (profile.timeDeltas[index + 1] ?? 0) / 1e6;
    if (!frame || frame.functionName === '(idle)') return;
    busy += seconds;
    const where = shortUrl(frame.url) || '(native)';
    add(byFile, where, seconds);
    add(byFunction, `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`, seconds);
  });
}
const top = (map) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .map(([key, seconds]) => `${seconds.toFixed(2).padStart(8)}  ${key}`)
    .join('\n');
console.log(`busy CPU seconds sampled: ${busy.toFixed(1)}`);
console.log(`\nby source file:\n${top(byFile)}`);
console.log(`\nby function (line numbers of the code as run, after vitest's transform):\n${top(byFunction)}`);
