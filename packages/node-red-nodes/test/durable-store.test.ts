import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskWatchEvent } from '@observation-service/core';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { durablePositionStore } from '../src/lib/durable-store.js';
import type { Node } from '../src/lib/node-red-api.js';
import { catchNode, serverNode, sink, source, statusNode, TAB, tab, taskWatchNode } from './harness/flows.js';
import { type FlowNode, NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

type Msg = Record<string, unknown>;

function errorOf(msg: Msg | undefined): { message?: string } {
  return (msg?.error ?? {}) as { message?: string };
}

/**
 * The durable store in a real Node-RED with a default settings.js (no contextStorage: memory
 * only). Restarts of the runtime itself are in task-watch-restart.test.ts; here the flows are
 * stopped and started, which already loses memory context (Node-RED deletes a node's memory
 * context whenever the node closes).
 */
describe(`durable node state with memory-only context (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23 });
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    red.clear();
    sim.control.reset();
  });

  const stateFile = (id: string) => join(red.userDir, 'observation-state', `${id}.json`);
  const storedTasks = (id: string) =>
    existsSync(stateFile(id))
      ? (
          JSON.parse(readFileSync(stateFile(id), 'utf8')) as {
            value: { tasks: Array<{ id: number; status: string }> };
          }
        ).value.tasks
      : undefined;

  async function deploy(nodes: FlowNode[]) {
    await red.deploy([
      tab(),
      serverNode(sim),
      sink('out'),
      sink('errors'),
      sink('status'),
      catchNode('catch-node', 'errors'),
      statusNode('status-node', 'status'),
      ...nodes,
    ]);
  }
  /** Waits for the watch's green status (a successful check) after `since` status messages. */
  async function checked(since = 0) {
    await red.waitFor('status', (list) =>
      list.slice(since).some((msg) => (msg.status as { fill?: string } | undefined)?.fill === 'green'),
    );
  }

  it("keeps the task watch's statuses in a file of its own and reports a change made while the flows were stopped, once", async () => {
    const [target, sentinel] = sim.world.tasks.filter((task) => task.status === 'operating, normal');
    if (!target || !sentinel) throw new Error('the simulator world needs two tasks operating normally');
    await deploy([source('in', ['watch']), taskWatchNode('watch', ['out'], { intervalSeconds: 3600 })]);
    await checked();
    await waitUntil(() => storedTasks('watch')?.length === sim.world.tasks.length, 5_000, 'the state file');
    const file = JSON.parse(readFileSync(stateFile('watch'), 'utf8'));
    expect(file).toMatchObject({
      format: 'node-red-observation-state',
      version: 1,
      node: 'watch',
      type: 'observation-task-watch',
      key: 'observation-task-watch',
      value: { format: 'observation-task-watch', version: 1 },
    });
    expect(JSON.stringify(file)).not.toContain('rtsp');

    await red.setFlowState('stop');
    sim.control.setTaskStatus(target.id, 'operating, disconnected');
    const statuses = red.messages('status').length;
    await red.setFlowState('start');
    const [changed] = await red.waitFor('out', (list) => list.length >= 1);
    expect(changed?.payload).toMatchObject({
      type: 'changed',
      taskId: target.id,
      previous: { raw: 'operating, normal' },
      current: { raw: 'operating, disconnected' },
    });
    await checked(statuses);
    expect(storedTasks('watch')?.find((task) => task.id === target.id)?.status).toBe(
      'operating, disconnected',
    );

    // Once: the next check reports only the next change.
    sim.control.setTaskStatus(sentinel.id, 'operating, slow');
    red.inject('in', {});
    const messages = await red.waitFor('out', (list) => list.length >= 2);
    expect(messages.map((msg) => (msg.payload as TaskWatchEvent).taskId)).toEqual([target.id, sentinel.id]);
    expect(red.messages('errors')).toEqual([]);
  });

  it('editing the tasks a watch watches and redeploying keeps comparing the tasks still watched, without an error', async () => {
    const [kept, dropped, added] = sim.world.tasks;
    if (!kept || !dropped || !added) throw new Error('the simulator world needs three tasks');
    const watch = taskWatchNode('watch', ['out'], { intervalSeconds: 3600, taskMode: 'ids' });
    await deploy([source('in', ['watch']), { ...watch, taskIds: `${kept.id},${dropped.id}` }]);
    await waitUntil(() => storedTasks('watch')?.length === 2, 5_000, 'the state file');
    sim.control.setTaskStatus(kept.id, 'non-operating, paused');
    const statuses = red.messages('status').length;
    await deploy([source('in', ['watch']), { ...watch, taskIds: `${kept.id},${added.id}` }]);
    await checked(statuses);
    const [msg] = await red.waitFor('out', (list) => list.length >= 1);
    expect(msg).toMatchObject({ changeType: 'changed', taskId: kept.id });
    // Nothing else: a later check finds the same, and the newly watched task was no "added".
    sim.control.setTaskStatus(added.id, 'operating, slow');
    red.inject('in', {});
    const messages = await red.waitFor('out', (list) => list.length >= 2);
    expect(messages.map((m) => [m.changeType, m.taskId])).toEqual([
      ['changed', kept.id],
      ['changed', added.id],
    ]);
    expect(red.messages('errors')).toEqual([]);
  });

  it('deletes the file when the node is deleted, keeps it when the node is disabled or redeployed', async () => {
    const watch = taskWatchNode('watch', ['out'], { intervalSeconds: 3600 });
    await deploy([watch]);
    await waitUntil(() => existsSync(stateFile('watch')), 5_000, 'the state file');
    await deploy([{ ...watch, name: 'changed' }]);
    expect(existsSync(stateFile('watch'))).toBe(true);
    await deploy([{ ...watch, d: true }]);
    expect(existsSync(stateFile('watch'))).toBe(true);
    await deploy([watch]);
    await deploy([]);
    expect(existsSync(stateFile('watch'))).toBe(false);
  });

  it('reports a corrupt file once, moves it aside and starts from a fresh baseline', async () => {
    await deploy([taskWatchNode('watch', ['out'], { intervalSeconds: 3600 })]);
    await waitUntil(() => existsSync(stateFile('watch')), 5_000, 'the state file');
    await red.setFlowState('stop');
    writeFileSync(stateFile('watch'), '{"format":"node-red-observation-state","ver');
    let statuses = red.messages('status').length;
    await red.setFlowState('start');
    const [caught] = await red.waitFor('errors', (list) => list.length >= 1);
    expect(caught?.payload).toMatchObject({ code: 'TASK_WATCH_STATE_RESET' });
    expect(errorOf(caught).message).toContain(
      `The stored state in ${stateFile('watch')} cannot be used: it is not JSON`,
    );
    expect(errorOf(caught).message).toContain(`moved to ${stateFile('watch')}.corrupt`);
    expect(readFileSync(`${stateFile('watch')}.corrupt`, 'utf8')).toContain('"ver');
    await checked(statuses);
    await waitUntil(
      () => storedTasks('watch')?.length === sim.world.tasks.length,
      5_000,
      'a fresh state file',
    );
    expect(red.messages('out')).toEqual([]); // a baseline reports nothing

    // Reported once: the next start reads the fresh file.
    await red.setFlowState('stop');
    statuses = red.messages('status').length;
    await red.setFlowState('start');
    await checked(statuses);
    expect(red.messages('errors')).toHaveLength(1);
  });

  it("binds core's PositionStore for the events node to the same file, across a restart of the flows", async () => {
    await red.deploy([tab(), sink('holder')]);
    const host = { settings: red.RED.settings, nodes: red.RED.nodes };
    const holder = red.node<Node>('holder');
    if (!holder) throw new Error('no holder node');
    const store = durablePositionStore(holder, host);
    expect(store.location).toEqual({ kind: 'file', path: stateFile('holder') });
    expect(await store.load()).toBeUndefined();
    const position = {
      format: 'observation-position' as const,
      version: 1 as const,
      scope: 'abc',
      savedAt: new Date().toISOString(),
      streams: { extended: { from: '2024-05-01T00:00:00.000Z', ids: [[1, 5] as [number, number]] } },
    };
    await store.save(position);

    await red.setFlowState('stop');
    await red.setFlowState('start');
    await red.nodesStarted([sink('holder', TAB)]);
    const restarted = red.node<Node>('holder');
    expect(restarted).not.toBe(holder);
    if (!restarted) throw new Error('no holder node');
    expect(await durablePositionStore(restarted, host).load()).toEqual(position);
  });
});
