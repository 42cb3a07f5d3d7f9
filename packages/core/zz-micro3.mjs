import { readFileSync } from 'node:fs';
import { normalizeEvent } from './dist/index.js';
const frames = JSON.parse(readFileSync('/tmp/frames.json', 'utf8')).slice(0, 10000).map((f) => JSON.parse(f));
let s = 0;
for (let r = 0; r < 40; r++) for (const f of frames) s += normalizeEvent(f).event.maxConfidence;
console.log(s > 0);
