import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '@observation-service/simulator';
import { describe, expect, it } from 'vitest';

const child = fileURLToPath(new URL('./support/task-watch-child.ts', import.meta.url));
const hooks = fileURLToPath(new URL('./support/ts-source-hooks.mjs', import.meta.url));

/** Runs the child (the TypeScript sources, not a build) and resolves when it exits by itself. */
function runChild(
  env: Record<string, string>,
): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ['--experimental-transform-types', '--no-warnings', '--import', hooks, child],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    // A child still alive 4 s after it said "closed" was kept alive by something left behind.
    let killer: NodeJS.Timeout | undefined = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('closed ')) {
        clearTimeout(killer);
        killer = setTimeout(() => proc.kill('SIGKILL'), 4_000);
      }
    });
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    proc.on('error', reject);
    proc.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, lines: stdout.split('\n').filter(Boolean), stderr });
    });
  });
}

describe.concurrent('after close() the task watch leaves nothing that keeps the process alive', () => {
  it.each([
    ['close', 'watch.close() then client.close()'],
    ['in-flight', 'closed while a poll is in flight'],
    ['abort', 'closed by its AbortSignal'],
    ['client-close', 'closed by client.close() alone'],
  ])('%s: %s', async (scenario) => {
    // Own simulator per test (not the shared helper): the scenarios run concurrently.
    const sim = await startSimulator({ historySize: 0 });
    const run = await runChild({
      SCENARIO: scenario,
      SIMULATOR: JSON.stringify({ apiUrl: sim.apiUrl, token: sim.token, serviceId: sim.serviceId }),
    }).finally(() => sim.stop());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0); // SIGKILL (null) means it had to be killed
    expect(run.lines.at(-1)).toMatch(
      new RegExp(`^closed closed received=${sim.world.tasks.length} timers=0$`),
    );
    if (scenario !== 'client-close') expect(run.lines[0]).toBe('watch closed timers=0');
  });
});
