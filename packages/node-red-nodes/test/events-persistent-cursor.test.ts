import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNode, serverNode, sink, tab } from './harness/flows.js';
import { NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

function findFile(dir: string, name: string): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findFile(path, name);
      if (found) return found;
    } else if (entry.name === name) {
      return path;
    }
  }
  return undefined;
}

describe(`events node cursor with a persistent context store (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 13 });
    // What a user sets in settings.js to keep context across restarts (written at once here).
    red = await NodeRedHarness.start({
      contextStorage: { default: { module: 'localfilesystem', config: { flushInterval: 0 } } },
    });
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });

  it('writes the position of the last handled event to the context file', async () => {
    await red.deploy([tab(), serverNode(sim), sink('out'), eventsNode('events-node', ['out'])]);
    await new Promise((wake) => setTimeout(wake, 300));
    const emitted = await sim.control.emit(3);
    await red.waitFor('out', (list) => list.length === 3);
    // The node saves the cursor when it closes (and as later events arrive).
    await red.setFlowState('stop');
    const last = emitted.at(-1);
    let stored: { time?: string; id?: number } | undefined;
    await waitUntil(
      () => {
        const file = findFile(join(red.userDir, 'context'), 'events-node.json');
        if (!file) return false;
        stored = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, typeof stored>)[
          'observation-cursor'
        ];
        return stored?.id === last?.id;
      },
      5_000,
      'cursor in the context file',
    );
    expect(stored).toEqual({ time: last?.timestamp, id: last?.id });
    await red.setFlowState('start');
  });
});
