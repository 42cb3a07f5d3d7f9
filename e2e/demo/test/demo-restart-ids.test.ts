import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './demo-process.js';

// What both demos do on every start, without n8n or Node-RED: scripts/demo/simulator.mjs starts
// the built simulator with record ids that continue from the last run in the demo folder (n8n
// refuses a second execution under an event's id, so a restart counting from 1 again skipped
// events), and scripts/demo/n8n-workflows.mjs says which example workflows are published and how
// many realtime sockets they open (the banner waits for those).

interface DemoSimulator {
  apiUrl: string;
  wsUrl: string;
  serviceId: string;
  token: string;
  control: {
    emit(count: number): Promise<Array<{ id: number }>>;
    stats(): { firstRecordId: number; lastRecordId: number };
  };
  stop(): Promise<void>;
}
interface Example {
  name: string;
  workflow: { nodes?: Array<{ type?: string; disabled?: boolean }> };
}

const load = async <T>(path: string): Promise<T> =>
  (await import(pathToFileURL(join(repoRoot, path)).href)) as T;
const { startDemoSimulator } = await load<{
  startDemoSimulator(root: string, settings: object, log?: (line: string) => void): Promise<DemoSimulator>;
}>('scripts/demo/simulator.mjs');
const { expectedSockets, triggerWorkflows } = await load<{
  expectedSockets(examples: Example[]): number;
  triggerWorkflows(examples: Example[]): Example[];
}>('scripts/demo/n8n-workflows.mjs');

let dir: string;
const settingsOf = (demoDir: string) => ({
  simulatorPort: 0,
  host: '127.0.0.1',
  seed: 1,
  rate: 0,
  dir: demoDir,
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'demo-ids-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Ids of the newest page of history, as a client reads it. */
async function historyIds(sim: DemoSimulator): Promise<number[]> {
  const response = await fetch(`${sim.apiUrl}/events/history?limit=100`, {
    headers: { authorization: `Bearer ${sim.token}`, 'x-service-id': sim.serviceId },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as Array<{ id: number }>).map((row) => row.id);
}

/** `count` live events as a realtime socket receives them. */
async function liveIds(sim: DemoSimulator, count: number): Promise<number[]> {
  const ws = new WebSocket(`${sim.wsUrl}/events/realtime/${sim.serviceId}/0?token=${sim.token}`);
  const ids: number[] = [];
  const all = new Promise<void>((resolve, reject) => {
    ws.addEventListener('message', (message) => {
      ids.push((JSON.parse(String(message.data)) as { id: number }).id);
      if (ids.length === count) resolve();
    });
    ws.addEventListener('error', () => reject(new Error('realtime socket failed')));
  });
  await new Promise((resolve) => ws.addEventListener('open', resolve, { once: true }));
  await sim.control.emit(count);
  await all;
  ws.close();
  return ids;
}

describe('the demo simulator across restarts', () => {
  let before: number[] = [];

  it('a restart in the same demo folder gives only record ids above every id of the run before', async () => {
    const first = await startDemoSimulator(repoRoot, settingsOf(dir));
    expect(first.control.stats().firstRecordId).toBe(1);
    before = [...(await historyIds(first)), ...(await liveIds(first, 3))];
    await first.stop();

    const lines: string[] = [];
    const again = await startDemoSimulator(repoRoot, settingsOf(dir), (line) => lines.push(line));
    try {
      const after = [...(await historyIds(again)), ...(await liveIds(again, 3))];
      expect(Math.min(again.control.stats().firstRecordId, ...after)).toBeGreaterThan(Math.max(...before));
      expect(lines).toEqual([]);
      before = [...before, ...after];
    } finally {
      await again.stop();
    }
  });

  it('after a run killed before it could write its last id, the next one still starts above it', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { startDemoSimulator } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'scripts/demo/simulator.mjs')).href)});
const sim = await startDemoSimulator(${JSON.stringify(repoRoot)}, ${JSON.stringify(settingsOf(dir))});
const events = await sim.control.emit(5);
console.log(JSON.stringify({ ids: events.map((event) => event.id) }));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout?.setEncoding('utf8');
    const printed = new Promise<number[]>((resolve) => {
      child.stdout?.on('data', (chunk: string) => {
        output += chunk;
        const line = output.split('\n').find((text) => text.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { ids: number[] }).ids);
      });
    });
    const killed = new Promise((resolve) => child.once('exit', resolve));
    const ids = await printed;
    // Killed at once: its last ids may never have reached the file.
    child.kill('SIGKILL');
    await killed;
    expect(Math.min(...ids)).toBeGreaterThan(Math.max(...before));

    const lines: string[] = [];
    const again = await startDemoSimulator(repoRoot, settingsOf(dir), (line) => lines.push(line));
    try {
      const after = await liveIds(again, 2);
      expect(Math.min(again.control.stats().firstRecordId, ...after)).toBeGreaterThan(Math.max(...ids));
      expect(lines.join('\n')).toMatch(/did not stop cleanly/);
    } finally {
      await again.stop();
    }
  });
});

describe('the n8n demo banner', () => {
  const examplesDir = join(repoRoot, 'packages', 'n8n-nodes', 'examples');
  const examples: Example[] = readdirSync(examplesDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ name, workflow: JSON.parse(readFileSync(join(examplesDir, name), 'utf8')) }));

  it('publishes both trigger examples but waits for one socket: the Task Trigger polls and opens none', () => {
    expect(
      triggerWorkflows(examples)
        .map((example) => example.name)
        .sort(),
    ).toEqual(['person-alert-with-snapshot.workflow.json', 'task-outage-alert.workflow.json']);
    expect(expectedSockets(examples)).toBe(1);
  });

  it('counts each enabled Observation Trigger node, and no disabled one', () => {
    const node = (type: string, disabled = false) => ({
      type: `@observation-service/n8n-nodes-observation.${type}`,
      disabled,
    });
    const made: Example[] = [
      { name: 'two', workflow: { nodes: [node('observationTrigger'), node('observationTrigger')] } },
      { name: 'off', workflow: { nodes: [node('observationTrigger', true)] } },
      { name: 'poll', workflow: { nodes: [node('observationTaskTrigger')] } },
      { name: 'action', workflow: { nodes: [node('observation')] } },
    ];
    expect(triggerWorkflows(made).map((example) => example.name)).toEqual(['two', 'poll']);
    expect(expectedSockets(made)).toBe(2);
  });
});
