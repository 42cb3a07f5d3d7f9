import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';

const child = fileURLToPath(new URL('./__tests__/exit-child.ts', import.meta.url));
const hooks = fileURLToPath(new URL('./__tests__/ts-source-hooks.mjs', import.meta.url));
const EXIT_BOUND_MS = 3_000;

interface ChildRun {
  code: number | null;
  lines: string[];
  /** Time from "closed" on stdout to the process exit. */
  exitAfterCloseMs: number | undefined;
}

/**
 * Runs the child against the simulator of this process; `drive` reacts to its output. The child
 * runs the TypeScript sources directly (type stripping + a .js→.ts resolve hook), so it tests
 * this checkout, not a stale build.
 */
function runChild(sim: Simulator, scenario: string, drive: (line: string) => void): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ['--experimental-transform-types', '--no-warnings', '--import', hooks, child],
      {
        env: {
          ...process.env,
          SCENARIO: scenario,
          SIMULATOR: JSON.stringify({
            apiUrl: sim.apiUrl,
            wsUrl: sim.wsUrl,
            token: sim.token,
            serviceId: sim.serviceId,
          }),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const lines: string[] = [];
    let closedAt: number | undefined;
    let stderr = '';
    const killer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    proc.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter(Boolean)) {
        lines.push(line);
        if (line.startsWith('closed')) closedAt = Date.now();
        drive(line);
      }
    });
    proc.on('error', reject);
    proc.on('exit', (code) => {
      clearTimeout(killer);
      if (code !== 0) console.error(stderr);
      resolve({ code, lines, exitAfterCloseMs: closedAt === undefined ? undefined : Date.now() - closedAt });
    });
  });
}

describe('after close() nothing keeps the process alive', () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  it.each([
    ['open', 'closed while open and receiving'],
    ['reconnecting', 'closed while waiting for a reconnect'],
    ['abort', 'closed by an AbortSignal'],
    ['basic-all', "basic 'all' with a task-list timer and several sockets"],
  ])('%s: %s', async (scenario) => {
    sim = await startSimulator({ historySize: 0 });
    const run = await runChild(sim, scenario, (line) => {
      if (line !== 'open') return;
      void (async () => {
        await sim.control.emit(20);
        if (scenario === 'reconnecting') {
          sim.control.refuseConnections(60_000);
          sim.control.dropConnections();
        }
      })();
    });
    expect(run.code).toBe(0);
    expect(run.lines[0]).toBe('open');
    expect(run.lines[1]).toMatch(/^closed closed [1-9]/);
    expect(run.exitAfterCloseMs).toBeLessThan(EXIT_BOUND_MS);
  });
});
