import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './demo-process.js';
import { waitUntil } from './node-red-comms.js';

/**
 * The README: "Ctrl-C (or SIGTERM) stops everything; nothing is left running". npm sent SIGTERM
 * exits without passing it to the script it runs, which is left under PID 1 (the demo kept ports
 * 1880 and 8080). Tried with the real npm on PATH and the demo's own launcher
 * (scripts/demo/foreground.mjs, what `npm start` runs the demo with), launching a stand-in for the
 * demo that notes the SIGTERM it gets: the whole demo would take a minute of a busy runner for
 * the same evidence, and it already stops on SIGTERM (demo.test.ts).
 */
describe('npm start, then SIGTERM to npm alone: the demo is stopped, nothing is left running', () => {
  const dir = mkdtempSync(join(tmpdir(), 'npm-sigterm-'));
  const foreground = pathToFileURL(join(repoRoot, 'scripts', 'demo', 'foreground.mjs')).href;
  const note = (name: string) => join(dir, name);
  const read = (name: string) => (existsSync(note(name)) ? readFileSync(note(name), 'utf8') : '');
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const started: number[] = [];

  afterAll(() => {
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  // The stand-in: notes its pid when up and the signal that stops it.
  writeFileSync(
    note('demo.mjs'),
    `import { appendFileSync, writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(note('demo.pid'))}, String(process.pid));
process.on('SIGTERM', () => { appendFileSync(${JSON.stringify(note('demo.signals'))}, 'SIGTERM\\n'); process.exit(0); });
setInterval(() => {}, 1000);
`,
  );
  // What scripts/run.mjs does for `npm start`: the parent read first, then a set-up that may
  // outlast it (here: until the test says go), then the demo in the foreground.
  writeFileSync(
    note('run.mjs'),
    `import { existsSync, writeFileSync } from 'node:fs';
import { inForeground } from ${JSON.stringify(foreground)};
const parent = process.ppid;
writeFileSync(${JSON.stringify(note('run.pid'))}, String(process.pid));
const go = () => existsSync(${JSON.stringify(note('go'))}) || process.argv[2] === 'now';
const wait = setInterval(() => {
  if (!go()) return;
  clearInterval(wait);
  inForeground(process.execPath, [${JSON.stringify(note('demo.mjs'))}], { env: process.env, cwd: ${JSON.stringify(dir)}, parent });
}, 50);
`,
  );
  writeFileSync(
    note('package.json'),
    JSON.stringify({
      name: 'npm-sigterm-check',
      private: true,
      scripts: { start: 'node run.mjs now', 'start-after-setup': 'node run.mjs' },
    }),
  );
  // A user's shell: no npm_config_* of the pnpm that runs this test.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_(config|package|lifecycle)_/i.test(key)),
  );

  const npm = (script: string) => {
    const child = spawn('npm', ['run', script], { cwd: dir, env, stdio: 'ignore' });
    if (child.pid !== undefined) started.push(child.pid);
    return child;
  };

  it('SIGTERM while the demo runs: the demo gets SIGTERM and exits, and so does the launcher', async () => {
    const npmProcess = npm('start');
    await waitUntil('the demo up', () => read('demo.pid') !== '');
    const [runPid, demoPid] = [Number(read('run.pid')), Number(read('demo.pid'))];
    started.push(runPid, demoPid);
    npmProcess.kill('SIGTERM');
    await waitUntil('the demo and its launcher gone', () => !alive(demoPid) && !alive(runPid), 15_000).catch(
      () => undefined,
    );
    expect({ demo: alive(demoPid), launcher: alive(runPid), signals: read('demo.signals') }).toEqual({
      demo: false,
      launcher: false,
      signals: 'SIGTERM\n',
    });
  });

  it('SIGTERM during the set-up, before the demo starts: the demo is stopped as it starts', async () => {
    for (const name of ['demo.pid', 'run.pid', 'demo.signals', 'go']) rmSync(note(name), { force: true });
    const npmProcess = npm('start-after-setup');
    await waitUntil('the launcher up', () => read('run.pid') !== '');
    const runPid = Number(read('run.pid'));
    started.push(runPid);
    npmProcess.kill('SIGTERM');
    await new Promise((resolve) => npmProcess.once('exit', resolve));
    writeFileSync(note('go'), '');
    // Evidence the launch happened: the launcher ends only once it started the demo and the demo
    // exited, whichever way (killed before its handler was in, or by its handler).
    await waitUntil('the launcher gone', () => !alive(runPid), 15_000).catch(() => undefined);
    const demoPid = Number(read('demo.pid'));
    if (demoPid > 0) started.push(demoPid);
    expect({ launcher: alive(runPid), demo: demoPid > 0 && alive(demoPid) }).toEqual({
      launcher: false,
      demo: false,
    });
  });
});
