import { readFileSync } from 'node:fs';
import { normalizeEvent } from './dist/index.js';
const frames = JSON.parse(readFileSync('/tmp/frames.json', 'utf8')).slice(0, 10000);
const mode = process.argv[2];
let s = 0;
for (let r = 0; r < 5; r++) for (const f of frames) s += mode === 'norm' ? normalizeEvent(JSON.parse(f)).event.maxConfidence : JSON.parse(f).task_id;
console.log(mode, s > 0);
