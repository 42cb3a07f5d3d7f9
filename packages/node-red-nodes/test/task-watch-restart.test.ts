import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, serverNode, statusNode, TAB, tab, taskWatchNode } from './harness/flows.js';
import { type FlowNode, nodeRedPackage } from './harness/node-red.js';
import { NodeRedProcess, type ProcessOptions } from './harness/node-red-process.js';
import { waitUntil } from './harness/wait.js';

interface Line {
  type: string;
  taskId: number;
  previous?: { raw: string };
  current?: { raw: string };
}

/** A Node-RED file node appending each msg.payload as a line of JSON. */
function fileNode(id: string, filename: string): FlowNode {
  return {
    id,
    type: 'file',
    z: TAB,
    name: '',
    filename,
    filenameType: 'str',
    appendNewline: true,
    createDir: true,
    overwriteFile: 'false',
    encoding: 'none',
    wires: [[]],
  };
}

/**
 * The task watch across real restarts of Node-RED (`red.js` in a child process, stopped with
 * SIGINT or killed with SIGKILL): what a status change made while Node-RED was down turns into,
 * with the default settings.js (no contextStorage) and with the localfilesystem context store.
 * The watch's messages and Catch reports go to files through Node-RED's own file nodes.
 */
describe(`task watch across Node-RED restarts (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedProcess | undefined;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 29 });
  });
  afterAll(async () => {
    await sim?.stop();
  });
  afterEach(async () => {
    await red?.dispose();
    red = undefined;
    sim.control.reset();
  });

  function running(options: ProcessOptions = {}): NodeRedProcess {
    red = NodeRedProcess.create(options);
    return red;
  }
  const outFile = (node: NodeRedProcess) => join(node.userDir, 'out.jsonl');
  const errorFile = (node: NodeRedProcess) => join(node.userDir, 'errors.jsonl');
  const statusFile = (node: NodeRedProcess) => join(node.userDir, 'status.jsonl');
  const lines = (file: string): Line[] =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as Line)
      : [];

  function flow(node: NodeRedProcess): FlowNode[] {
    return [
      tab(),
      serverNode(sim),
      taskWatchNode('watch', ['out-file'], { intervalSeconds: 1 }),
      fileNode('out-file', outFile(node)),
      catchNode('catch-node', 'error-file'),
      fileNode('error-file', errorFile(node)),
      statusNode('status-node', 'status-payload'),
      {
        id: 'status-payload',
        type: 'change',
        z: TAB,
        name: '',
        rules: [{ t: 'move', p: 'status', pt: 'msg', to: 'payload', tot: 'msg' }],
        wires: [['status-file']],
      },
      fileNode('status-file', statusFile(node)),
    ];
  }
  /** Waits for the watch's green status (a successful check) after the first `from` status lines. */
  async function checked(node: NodeRedProcess, from: number) {
    const green = () =>
      lines(statusFile(node))
        .slice(from)
        .some((line) => (line as unknown as { fill?: string }).fill === 'green');
    await waitUntil(green, 15_000, 'a successful check');
  }
  /** Two tasks operating normally: one to change while Node-RED is down, one as a later sentinel. */
  function twoTasks() {
    const [changed, sentinel] = sim.world.tasks.filter((task) => task.status === 'operating, normal');
    if (!changed || !sentinel) throw new Error('the simulator world needs two tasks operating normally');
    return { changed, sentinel };
  }
  /** The watch's messages since `from`, once the sentinel's change arrived: nothing else can come between. */
  async function untilSentinel(node: NodeRedProcess, sentinelId: number, from: number): Promise<Line[]> {
    sim.control.setTaskStatus(sentinelId, 'operating, slow');
    await waitUntil(
      () => lines(outFile(node)).some((line) => line.taskId === sentinelId),
      15_000,
      'the sentinel change',
    );
    return lines(outFile(node)).slice(from);
  }
  const summary = (list: Line[]) => list.map((line) => [line.type, line.taskId, line.current?.raw]);
  const stateFile = (node: NodeRedProcess) => join(node.userDir, 'observation-state', 'watch.json');
  const storedStatus = (text: string | undefined, taskId: number) =>
    text === undefined
      ? undefined
      : // The value is absent until the store has written it: undefined then, not a throw.
        (JSON.parse(text) as { value?: { tasks: Array<{ id: number; status: string }> } }).value?.tasks.find(
          (task) => task.id === taskId,
        )?.status;

  it('default settings (memory context): a change made while Node-RED was stopped is reported once after the restart', async () => {
    const node = running();
    const { changed, sentinel } = twoTasks();
    await node.start();
    expect(node.log).toContain("Context store  : 'default' [module=memory]");
    await node.deploy(flow(node));
    await waitUntil(() => existsSync(stateFile(node)), 15_000, 'the state file');
    await node.stop();

    sim.control.setTaskStatus(changed.id, 'operating, disconnected');
    await node.start();
    const after = await untilSentinel(node, sentinel.id, 0);
    expect(summary(after)).toEqual([
      ['changed', changed.id, 'operating, disconnected'],
      ['changed', sentinel.id, 'operating, slow'],
    ]);
    expect(after[0]?.previous?.raw).toBe('operating, normal');
    expect(lines(errorFile(node))).toEqual([]);
  });

  it('localfilesystem context: the state is in the node context file, its first one in a file of its own until the next start; same report after a restart', async () => {
    const node = running({ contextStorage: { default: { module: 'localfilesystem' } } });
    const { changed, sentinel } = twoTasks();
    await node.start();
    await node.deploy(flow(node));
    await checked(node, 0);
    // Written when Node-RED stops (before its 30 s flush), as every localfilesystem context value.
    await node.stop();
    const context = node.readFile('context', TAB, 'watch.json');
    expect(JSON.parse(context ?? '{}')['observation-task-watch']).toMatchObject({
      format: 'observation-task-watch',
    });
    // The first state, which the cache would have written only 30 s later, went to a file at once
    // (a kill before that flush keeps it); once the context on disk holds it, the file goes.
    expect(existsSync(stateFile(node))).toBe(true);

    sim.control.setTaskStatus(changed.id, 'non-operating, paused');
    await node.start();
    const after = await untilSentinel(node, sentinel.id, 0);
    expect(summary(after)).toEqual([
      ['changed', changed.id, 'non-operating, paused'],
      ['changed', sentinel.id, 'operating, slow'],
    ]);
    expect(lines(errorFile(node))).toEqual([]);
    expect(existsSync(stateFile(node))).toBe(false);
  });

  it('a state kept in a file while the context was memory only moves into a localfilesystem context once it is configured', async () => {
    const node = running();
    const { changed, sentinel } = twoTasks();
    await node.start();
    await node.deploy(flow(node));
    await waitUntil(() => existsSync(stateFile(node)), 15_000, 'the state file');
    await node.stop();

    node.configure({
      contextStorage: { default: { module: 'localfilesystem', config: { flushInterval: 0 } } },
    });
    sim.control.setTaskStatus(changed.id, 'operating, disconnected');
    await node.start();
    const after = await untilSentinel(node, sentinel.id, 0);
    expect(summary(after)[0]).toEqual(['changed', changed.id, 'operating, disconnected']);
    await waitUntil(() => !existsSync(stateFile(node)), 5_000, 'the file retired');
    // The context store writes what was set on its next turn (flushInterval 0): the latest check soon.
    const inContext = () => {
      const context = JSON.parse(node.readFile('context', TAB, 'watch.json') ?? '{}');
      return storedStatus(JSON.stringify({ value: context['observation-task-watch'] }), sentinel.id);
    };
    await waitUntil(
      () => inContext() === 'operating, slow',
      5_000,
      'the latest statuses in the context file',
    );
  });

  it('killed (SIGKILL): the file store has the state of the last check, so nothing is reported twice', async () => {
    const node = running();
    const { changed, sentinel } = twoTasks();
    await node.start();
    await node.deploy(flow(node));
    await waitUntil(() => existsSync(stateFile(node)), 15_000, 'the state file');
    sim.control.setTaskStatus(changed.id, 'operating, disconnected');
    await waitUntil(() => lines(outFile(node)).length === 1, 15_000, 'the change');
    // The watch saves right after it sent the check's messages, before the file node wrote them.
    expect(storedStatus(node.readFile('observation-state', 'watch.json'), changed.id)).toBe(
      'operating, disconnected',
    );
    await node.kill();

    await node.start();
    const after = await untilSentinel(node, sentinel.id, 1);
    expect(summary(after)).toEqual([['changed', sentinel.id, 'operating, slow']]);
  });

  it("killed (SIGKILL) with localfilesystem's cache: what changed since its last flush is reported again, not lost", async () => {
    // An hour between flushes makes "killed before the flush" certain; the default is 30 s.
    const node = running({
      contextStorage: { default: { module: 'localfilesystem', config: { flushInterval: 3600 } } },
    });
    const { changed, sentinel } = twoTasks();
    await node.start();
    await node.deploy(flow(node));
    await checked(node, 0);
    await node.stop(); // flushes the baseline
    const before = lines(statusFile(node)).length;
    await node.start();
    await checked(node, before);
    sim.control.setTaskStatus(changed.id, 'operating, disconnected');
    await waitUntil(() => lines(outFile(node)).length === 1, 15_000, 'the change');
    await node.kill();

    await node.start();
    const after = await untilSentinel(node, sentinel.id, 1);
    expect(summary(after)).toEqual([
      ['changed', changed.id, 'operating, disconnected'],
      ['changed', sentinel.id, 'operating, slow'],
    ]);
  });
});
