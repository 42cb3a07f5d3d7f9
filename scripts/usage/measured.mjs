#!/usr/bin/env node
// `node measured.mjs <usage.json> <command> [args…]`: runs the command with this process's stdio
// and, when it ends, writes its CPU seconds (its own and every process under it that was waited
// for) to usage.json, then exits as the command did. A process of its own per task, because Linux
// counts a child's CPU only in the parent that waits for it: a test pool running several tasks at
// once cannot tell their CPU apart in its own counters.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpuSecondsWithChildren } from './cpu-seconds.mjs';

const [usageFile, command, ...args] = process.argv.slice(2);
if (!usageFile || !command) {
  console.error('usage: node measured.mjs <usage.json> <command> [args…]');
  process.exit(2);
}
const child = spawn(command, args, { stdio: 'inherit' });
// Ctrl-C reaches the whole process group; a SIGTERM sent to us alone is passed on.
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('error', (error) => {
  console.error(`${command}: ${error.message}`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  writeFileSync(usageFile, JSON.stringify({ cpuSeconds: cpuSecondsWithChildren(), code, signal }));
  process.exit(code ?? 1);
});
