// Copies what n8n reads next to the compiled nodes: icons (SVG) and codex files (*.node.json).
import { cpSync, readdirSync, statSync } from 'node:fs';
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
console.log(`assets copied to ${relative(process.cwd(), join(root, 'dist')) || 'dist'}`);
