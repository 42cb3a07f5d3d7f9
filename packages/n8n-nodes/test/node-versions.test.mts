import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createEngine, type Engine, loadPackage, packageName } from './harness/n8n-engine.mts';
import { tokenCredential } from './harness/simulator-credentials.mts';
import { savedNodes } from './saved-nodes.mts';
import { runSavedNode, type SavedOutput } from './saved-nodes-run.mts';

// The node version policy (README, "Node versions"): a workflow saved with a version of the
// package keeps running, with the same fields out, in every later version. The fields were
// recorded once, from the first published version (0.1.0), in __fixtures__/first-version-outputs.json;
// never re-record them to make this pass: a change that alters them belongs in a new typeVersion.
const recorded = JSON.parse(
  readFileSync(join(import.meta.dirname, '__fixtures__', 'first-version-outputs.json'), 'utf8'),
) as Record<string, SavedOutput>;

let sim: Simulator;
let engine: Engine;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 7, historySize: 50 });
  engine = await createEngine(tokenCredential(sim));
});
afterAll(async () => {
  await sim?.stop();
});

describe('workflows saved with the first version', () => {
  test('cover every node and every version the package has, and every version is still offered', async () => {
    const loader = await loadPackage();
    const offered: string[] = [];
    for (const [name, { type }] of Object.entries(loader.nodeTypes)) {
      const versions =
        'nodeVersions' in type
          ? Object.keys(type.nodeVersions).map(Number)
          : [type.description.version].flat();
      for (const version of versions) offered.push(`${packageName}.${name}@${version}`);
    }
    const saved = savedNodes(sim).map((node) => `${node.type}@${node.typeVersion}`);
    expect(offered.length).toBeGreaterThanOrEqual(4);
    expect([...new Set(saved)].sort()).toEqual(offered.sort());
    expect(Object.keys(recorded).sort()).toEqual(
      savedNodes(sim)
        .map((node) => node.name)
        .sort(),
    );
  });

  for (const name of Object.keys(recorded)) {
    test(`"${name}" runs unchanged and still gives every field it gave`, async () => {
      const saved = savedNodes(sim).find((node) => node.name === name);
      if (!saved) throw new Error(`no saved node "${name}"`);
      const output = await runSavedNode(engine, sim, saved);
      const expected = recorded[name] as SavedOutput;
      expect(expected.keys.filter((key) => !output.keys.includes(key))).toEqual([]);
      expect(expected.binary.filter((key) => !output.binary.includes(key))).toEqual([]);
    });
  }
});
