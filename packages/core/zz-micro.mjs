import { readFileSync } from 'node:fs';
import { normalizeEvent } from './dist/index.js';
const frames = JSON.parse(readFileSync('/tmp/frames.json', 'utf8'));
function cpu(fn) { const b = process.cpuUsage(); let s = 0; for (let r = 0; r < 10; r++) for (const f of frames) s += fn(f); const u = process.cpuUsage(b); return [(u.user + u.system) / (frames.length * 10), s]; }
for (let i = 0; i < 3; i++) {
  const [p] = cpu((f) => JSON.parse(f).task_id);
  const [n] = cpu((f) => normalizeEvent(JSON.parse(f)).event.maxConfidence);
  console.log(`parse ${p.toFixed(3)} µs, parse+normalize ${n.toFixed(3)} µs, normalize ${(n - p).toFixed(3)} µs`);
}
