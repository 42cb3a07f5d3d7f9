// Copies what n8n reads next to the compiled nodes: icons (SVG) and codex files (*.node.json).
import { cpSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const wanted = /\.(svg|png|node\.json)$/;

function copyTree(dir) {
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) copyTree(path);
    else if (wanted.test(name)) cpSync(join(root, path), join(root, 'dist', path));
  }
}

for (const dir of ['icons', 'nodes', 'credentials']) copyTree(dir);

// package.json `main`: n8n loads the files its `n8n` field lists; this entry gives code that
// require()s the package the same node and credential classes.
writeFileSync(
  join(root, 'dist', 'index.js'),
  `'use strict';
// The node and credential classes of this package (n8n itself loads the files listed in package.json's n8n field).
module.exports = {
  ...require('./credentials/ObservationApi.credentials.js'),
  ...require('./nodes/Observation/Observation.node.js'),
  ...require('./nodes/ObservationTrigger/ObservationTrigger.node.js'),
  ...require('./nodes/ObservationTaskTrigger/ObservationTaskTrigger.node.js'),
};
`,
);
console.log(`assets copied to ${relative(process.cwd(), join(root, 'dist')) || 'dist'}`);
