import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sink } from './harness/flows.js';
import { type FlowNode, NodeRedHarness, nodeRedPackage, packageRoot } from './harness/node-red.js';

const examplesDir = join(packageRoot, 'examples');
const examples = readdirSync(examplesDir).filter((name) => name.endsWith('.json'));

/**
 * The example as a user gets it, pointed at the simulator (credentials set as the editor would),
 * with a test sink beside every debug node and without file nodes (they would write to disk).
 * Each example has its own sink, so a message still in flight from the previous one is not counted.
 */
function prepare(nodes: FlowNode[], sim: Simulator, sinkId: string): FlowNode[] {
  const debugIds = new Set(nodes.filter((node) => node.type === 'debug').map((node) => node.id));
  const fileIds = new Set(nodes.filter((node) => node.type === 'file').map((node) => node.id));
  const out = nodes
    .filter((node) => !fileIds.has(node.id))
    .map((node) => {
      if (node.type === 'observation-server') {
        return { ...node, url: sim.apiUrl, serviceId: sim.serviceId, credentials: { token: sim.token } };
      }
      const wires = node.wires as string[][] | undefined;
      if (!wires) return node;
      return {
        ...node,
        wires: wires.map((port) => {
          const kept = port.filter((id) => !fileIds.has(id));
          return kept.some((id) => debugIds.has(id)) ? [...kept, sinkId] : kept;
        }),
      };
    });
  const z = nodes.find((node) => node.type === 'tab')?.id ?? '';
  return [...out, sink(sinkId, z)];
}

describe(`example flows against the simulator (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 9, historySize: 30 });
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });

  it('every example runs with this package alone (no Dashboard 2 widget: those live with the gallery package)', () => {
    for (const file of examples) {
      const nodes = JSON.parse(readFileSync(join(examplesDir, file), 'utf8')) as FlowNode[];
      expect(
        nodes.filter((node) => node.type.startsWith('ui-')).map((node) => node.type),
        file,
      ).toEqual([]);
    }
  });

  it.each(examples)('%s deploys and produces messages', async (file) => {
    const sinkId = `sink-${examples.indexOf(file)}`;
    const nodes = JSON.parse(readFileSync(join(examplesDir, file), 'utf8')) as FlowNode[];
    await red.deploy(prepare(nodes, sim, sinkId));
    const events = nodes.filter((node) => node.type === 'observation-events');
    const injects = nodes.filter((node) => node.type === 'inject');
    if (events.length > 0) {
      await new Promise((wake) => setTimeout(wake, 300));
      // Enough events that the filtered examples (person at 0.8, fire) see some of them.
      await sim.control.emit(60);
    }
    for (const inject of injects) {
      const result = await red.request('POST', `/inject/${inject.id}`);
      expect(result.status).toBe(200);
    }
    const expected = Math.max(injects.length, 1);
    const messages = await red.waitFor(sinkId, (list) => list.length >= expected, 15_000);
    expect(messages.length).toBeGreaterThanOrEqual(expected);
    if (file.startsWith('02')) {
      expect(
        messages.every(
          (msg) =>
            Buffer.isBuffer(msg.snapshot) && Buffer.isBuffer(msg.annotated) && typeof msg.alert === 'string',
        ),
      ).toBe(true);
    }
    if (file.startsWith('04')) {
      expect(messages.every((msg) => Buffer.isBuffer(msg.payload) && typeof msg.filename === 'string')).toBe(
        true,
      );
    }
  });
});
