import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { N8nProcess } from './n8n-process.ts';
import { SimulatorProcess } from './simulator-process.ts';

let home: string;
const previousHome = process.env.HOME;

beforeAll(() => {
  // The children inherit this process's environment: a HOME of our own shows whatever n8n
  // would have written into the user's home folder.
  home = mkdtempSync(join(tmpdir(), 'bench-home-'));
  process.env.HOME = home;
});
afterAll(() => {
  process.env.HOME = previousHome;
  rmSync(home, { recursive: true, force: true });
});

it("runs n8n with a user folder of its own, removed afterwards: nothing in the user's home", async () => {
  const sim = await SimulatorProcess.start({ form: 'extended' });
  const n8n = await N8nProcess.start();
  try {
    await n8n.activate('trigger', sim.addresses);
    for (let round = 0; (await n8n.counter.count()) === 0; round++) {
      if (round > 200) throw new Error('the trigger received no event');
      await sim.emit(5);
      await new Promise((wake) => setTimeout(wake, 50));
    }
    await n8n.deactivate();
    // Positive evidence that n8n-core did write its settings, into the process's own folder.
    expect(existsSync(join(n8n.userFolder, '.n8n', 'config'))).toBe(true);
  } finally {
    await n8n.stop();
    await sim.stop();
  }
  expect(existsSync(n8n.userFolder)).toBe(false);
  expect(readdirSync(home)).toEqual([]);
});
