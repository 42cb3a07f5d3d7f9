import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sink } from './harness/flows.js';
import { type FlowNode, NodeRedHarness, nodeRedPackage, packageRoot } from './harness/node-red.js';

const examplesDir = join(packageRoot, 'examples');
const examples = readdirSync(examplesDir)
  .filter((name) => name.endsWith('.json'))
  .sort();
const galleryExample = join(
  packageRoot,
  '..',
  'node-red-dashboard-gallery',
  'examples',
  '01 live event gallery on a dashboard.json',
);
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as FlowNode[];
const flowsOf = (file: string) => read(join(examplesDir, file));
const SERVER_ID = 'obs-example-server';
const sinkOf = (file: string) => `sink-${file.slice(0, 2)}`;

/**
 * The example as a user imports it, started against the simulator as `npx observation-simulator`
 * starts it: only the port differs (this one is free), so the server node's address is moved to
 * it; its service id and demo login are the file's own. A test sink sits beside every debug node,
 * one per example. File nodes keep their paths: relative ones land under Node-RED's
 * fileWorkingDirectory, here the user dir, as the demo sets it.
 */
function prepare(nodes: FlowNode[], sim: Simulator, sinkId: string): FlowNode[] {
  const debugIds = new Set(nodes.filter((node) => node.type === 'debug').map((node) => node.id));
  const out = nodes.map((node) => {
    if (node.type === 'observation-server') return { ...node, url: sim.apiUrl };
    const wires = node.wires as string[][] | undefined;
    if (!wires) return node;
    return {
      ...node,
      wires: wires.map((port) => (port.some((id) => debugIds.has(id)) ? [...port, sinkId] : port)),
    };
  });
  const z = nodes.find((node) => node.type === 'tab')?.id ?? '';
  return [...out, sink(sinkId, z)];
}

describe(`example flows, all imported into one Node-RED (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;
  let flows: FlowNode[];

  beforeAll(async () => {
    // `npx observation-simulator`'s defaults: seed 1 (the service id the examples name), realistic
    // delays (snapshots written 0.5 to 2 s after publication), 2 live events a second.
    sim = await startSimulator({ seed: 1, rate: 2, realism: 'mild', historySize: 5000 });
    red = await NodeRedHarness.start({ filesInUserDir: true });
    // Every example on its own tab, one shared server node: what importing them one after the
    // other gives (the server's id is the same in each, so Node-RED keeps the one already there).
    const servers = new Map<string, FlowNode>();
    flows = examples.flatMap((file) =>
      prepare(flowsOf(file), sim, sinkOf(file)).filter((node) => {
        if (node.type !== 'observation-server') return true;
        servers.set(node.id, node);
        return false;
      }),
    );
    flows.push(...servers.values());
  }, 60_000);
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });

  it('every example runs with this package alone (no Dashboard 2 widget: those live with the gallery package)', () => {
    for (const file of examples) {
      expect(
        flowsOf(file)
          .filter((node) => node.type.startsWith('ui-'))
          .map((node) => node.type),
        file,
      ).toEqual([]);
    }
  });

  it('each import is independent: ids of its own, one server config node shared by every example (the gallery too)', () => {
    const ids = examples.flatMap((file) =>
      flowsOf(file)
        .filter((node) => node.type !== 'observation-server')
        .map((node) => node.id),
    );
    ids.push(
      ...read(galleryExample)
        .filter((n) => n.type !== 'observation-server')
        .map((n) => n.id),
    );
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    const servers = [...examples.map((file) => flowsOf(file)), read(galleryExample)].map((nodes) =>
      nodes.filter((node) => node.type === 'observation-server'),
    );
    for (const found of servers) {
      expect(found).toHaveLength(1);
      expect(found[0]).toEqual(servers[0]?.[0]);
    }
    const server = servers[0]?.[0];
    expect(server?.id).toBe(SERVER_ID);
    // The simulator as it starts by default: its address, service id (seed 1) and demo login.
    expect(server?.url).toBe('http://127.0.0.1:8080/apiserver');
    expect(server?.serviceId).toBe(sim.serviceId);
    expect(server?.credentials).toEqual(sim.credentials);
    expect(ids.every((id) => !/^ex-/.test(id))).toBe(true);
  });

  it('every node has each setting of its editor set (no empty Image wait, Late events or Keep-alive)', () => {
    for (const file of examples) {
      for (const node of flowsOf(file)) {
        if (node.type === 'observation-events') {
          for (const key of ['mediaWait', 'allowedLateness', 'lookBackMinutes', 'ackMode', 'maxInFlight']) {
            expect(node[key], `${file} ${node.id} ${key}`).not.toBeUndefined();
            expect(node[key], `${file} ${node.id} ${key}`).not.toBe('');
          }
        }
        if (node.type === 'observation-server') expect(node.keepAliveSeconds, file).toBe(30);
        if (node.type === 'observation-query') {
          expect(node.objectsType, `${file} ${node.id}`).toBe('json');
          expect(node.mediaWait, `${file} ${node.id}`).not.toBeUndefined();
        }
      }
    }
  });

  it('all deploy together and each produces messages with a topic; a redeploy does not repeat the task statuses', {
    timeout: 120_000,
  }, async () => {
    await red.deploy(flows);
    // Live events reach example 01 once its subscription is up: then the burst for the filtered
    // examples (person at 0.8, fire) is sent.
    await red.waitFor(sinkOf(examples[0] ?? ''), (list) => list.length > 0, 30_000);
    await sim.control.emit(60);
    const injects = flows.filter((node) => node.type === 'inject');
    for (const inject of injects) {
      const result = await red.request('POST', `/inject/${inject.id}`);
      expect(result.status).toBe(200);
    }
    for (const file of examples) {
      const expected = Math.max(flowsOf(file).filter((node) => node.type === 'inject').length, 1);
      const messages = await red.waitFor(sinkOf(file), (list) => list.length >= expected, 30_000);
      // The debug sidebar shows msg.topic above each message: never "undefined".
      for (const msg of messages) expect(typeof msg.topic === 'string' && msg.topic !== '', file).toBe(true);
      if (file.startsWith('02')) {
        expect(
          messages.every(
            (msg) =>
              Buffer.isBuffer(msg.snapshot) &&
              Buffer.isBuffer(msg.annotated) &&
              typeof msg.alert === 'string',
          ),
        ).toBe(true);
        // The alert names the surest person, the one the event passed the 80 % filter for.
        for (const msg of messages) {
          const people = (msg.payload as { objects: Array<{ name: string; confidence: number }> }).objects
            .filter((object) => object.name === 'person')
            .map((object) => object.confidence);
          expect(msg.alert).toMatch(new RegExp(`: person ${Math.round(Math.max(...people) * 100)} %$`));
          expect(Math.max(...people)).toBeGreaterThanOrEqual(0.8);
        }
      }
      if (file.startsWith('04')) {
        expect(
          messages.every((msg) => typeof msg.filename === 'string' && msg.contentType === 'image/png'),
        ).toBe(true);
      }
    }
    // Example 04 keeps the latest snapshot of each task, not a file per event, under the user dir.
    const written = readdirSync(join(red.userDir, 'observation-snapshots'));
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThanOrEqual(sim.world.tasks.length);
    expect(written.every((name) => /^task-\d+-latest\.png$/.test(name))).toBe(true);
    // Example 07's debug node hears of an event only once the file node wrote its line.
    expect(readFileSync(join(red.userDir, 'observation-log', 'events.log'), 'utf8')).toMatch(/ task \d+ /);

    // Example 06: "At start" sent every task's status once...
    const watchSink = sinkOf(examples.find((file) => file.startsWith('06')) ?? '');
    const initial = await red.waitFor(
      watchSink,
      (list) => list.filter((msg) => msg.changeType === 'initial').length >= sim.world.tasks.length,
      30_000,
    );
    expect(new Set(initial.filter((msg) => msg.changeType === 'initial').map((msg) => msg.taskId)).size).toBe(
      sim.world.tasks.length,
    );
    // ...and a full deploy does not send them again: after it, the first message is the change
    // made on the service (the sentinel), with no "initial" before it.
    const before = red.messages(watchSink).length;
    await red.deploy(flows);
    const task = sim.world.tasks[0];
    if (!task) throw new Error('no task');
    sim.control.setTaskStatus(
      task.id,
      task.status === 'operating, slow' ? 'operating, normal' : 'operating, slow',
    );
    const check = flows.find((node) => node.type === 'inject' && String(node.id).startsWith('obs-ex06'));
    await red.request('POST', `/inject/${check?.id}`);
    const after = await red.waitFor(
      watchSink,
      (list) => list.slice(before).some((msg) => msg.changeType === 'changed'),
      30_000,
    );
    expect(after.slice(before).filter((msg) => msg.changeType === 'initial')).toEqual([]);

    // Nothing the examples did was reported as a problem.
    const ours = new Set(flows.map((node) => node.id));
    expect(red.problems.filter((problem) => problem.id !== undefined && ours.has(problem.id))).toEqual([]);
  });
});
