/**
 * Sums the self time per function over one or more .cpuprofile files (V8's format, as
 * `--cpu-prof` writes them) and prints the top frames:
 *
 *   node bench/src/cpuprofile-top.ts [--top 15] [--events 450000] file.cpuprofile…
 *
 * With `--events` (the events the profiled parts handled) each frame also gets µs per event.
 * Shares are of the busy time: `(idle)` (waiting for the socket) is listed but not counted.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const option = (name: string): number | undefined => {
  const index = args.indexOf(`--${name}`);
  if (index === -1) return undefined;
  const value = Number(args[index + 1]);
  args.splice(index, 2);
  return value;
};
const top = option('top') ?? 15;
const events = option('events');
if (args.length === 0) {
  console.error('usage: node bench/src/cpuprofile-top.ts [--top N] [--events N] file.cpuprofile…');
  process.exit(2);
}

const selfMicros = new Map<string, number>();
let total = 0;
for (const file of args) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const frameOf = new Map<number, string>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${basename(url)}:${lineNumber + 1}` : '';
    frameOf.set(node.id, `${functionName || '(anonymous)'} ${where}`.trim());
  }
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the gap after it.
  for (let i = 0; i < profile.samples.length; i++) {
    const micros = profile.timeDeltas[i + 1] ?? 0;
    const frame = frameOf.get(profile.samples[i] as number) ?? '?';
    selfMicros.set(frame, (selfMicros.get(frame) ?? 0) + micros);
    total += micros;
  }
}

const busy = total - (selfMicros.get('(idle)') ?? 0);
const rows = [...selfMicros].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(
  `${args.length} profile(s), ${(total / 1000).toFixed(1)} ms sampled${events ? `, ${events} events` : ''}`,
);
for (const [frame, micros] of rows) {
  const share = frame === '(idle)' ? '    -' : ((micros / busy) * 100).toFixed(1).padStart(5);
  const perEvent = events ? `  ${(micros / events).toFixed(3)} µs/event` : '';
  console.log(`${share} %  ${(micros / 1000).toFixed(1).padStart(8)} ms${perEvent}  ${frame}`);
}
if (events) console.log(`busy ${(busy / events).toFixed(3)} µs/event sampled`);
