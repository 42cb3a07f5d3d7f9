import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNode, serverNode, TAB, tab } from './harness/flows.js';
import { nodeRedPackage } from './harness/node-red.js';
import { NodeRedProcess } from './harness/node-red-process.js';
import { waitUntil } from './harness/wait.js';

/** localfilesystem's default flushInterval: its cache writes what was set at most this late. */
const FLUSH_MS = 30_000;
/** Events published while Node-RED is down. */
const WHILE_DOWN = 12;

/** The record ids the sink wrote, in order. */
function sinkIds(file: string): number[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => Number(line.split(' ')[0]))
    : [];
}

/**
 * Node-RED with `localfilesystem` as its default context store and its default cache (written
 * 30 s after a set at most, on stop, never on a kill). The events node's first position is set at
 * its first start; deployed again and killed with SIGKILL a few seconds later, before that flush,
 * the context on disk holds nothing for it. The next start must still catch up what was published while Node-RED was
 * down, not start live as a new node does.
 */
describe(`events node killed right after its first start, cached context store (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedProcess;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 61 });
    red = NodeRedProcess.create({ contextStorage: { default: { module: 'localfilesystem' } } });
  });
  afterAll(async () => {
    await red?.dispose();
    await sim?.stop();
  });

  it('SIGKILL within seconds of the first start and a redeploy: every event published while Node-RED was down reaches the end', async () => {
    const sinkFile = join(red.userDir, 'events.log');
    const contextFile = join(red.userDir, 'context', TAB, 'events.json');
    const stateFile = join(red.userDir, 'observation-state', 'events.json');
    const storedInContext = () =>
      existsSync(contextFile)
        ? (JSON.parse(readFileSync(contextFile, 'utf8')) as Record<string, unknown>)['observation-position']
        : undefined;
    /** Waits for a new socket after a start, then for an on-time event published on it at the end. */
    const sentinelThrough = async (connectionsBefore: number, what: string) => {
      await waitUntil(
        () =>
          sim.control.stats().connectionsTotal > connectionsBefore && sim.control.stats().openSockets === 1,
        30_000,
        `connected (${what})`,
      );
      const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
      await waitUntil(() => sinkIds(sinkFile).includes(sentinel?.id ?? -1), 60_000, `the ${what} sentinel`);
    };

    await red.start();
    expect(red.log).toContain("Context store  : 'default' [module=localfilesystem]");
    const firstStart = Date.now();
    const flow = [
      tab(),
      serverNode(sim),
      eventsNode('events', ['sink']),
      { id: 'sink', type: 'test-file-sink', z: TAB, filename: sinkFile, wires: [] },
    ];
    await red.deploy(flow);
    // Live: an event published now reaches the end.
    await sentinelThrough(0, 'first start');
    // Deployed again, as a user does who changes a flow soon after: the node starts again and
    // finds its position in the store's cache, still not on disk.
    const beforeRedeploy = sim.control.stats().connectionsTotal;
    await red.deploy(flow);
    await sentinelThrough(beforeRedeploy, 'redeploy');
    const beforeKill = sinkIds(sinkFile);

    // Well before the store's first flush: the context on disk holds no position yet.
    const killedAfterMs = Date.now() - firstStart;
    expect(killedAfterMs).toBeLessThan(FLUSH_MS / 2);
    await red.kill();
    expect(storedInContext()).toBeUndefined();

    const connections = sim.control.stats().connectionsTotal;
    const whileDown = (await sim.control.emit(WHILE_DOWN, { latenessMs: 0 })).map((event) => event.id);
    await red.start();
    await sentinelThrough(connections, 'restart');

    const afterRestart = sinkIds(sinkFile).slice(beforeKill.length);
    const lost = whileDown.filter((id) => !afterRestart.includes(id));
    const repeated = afterRestart.filter((id) => beforeKill.includes(id));
    console.log(
      `events first-start kill (${nodeRedPackage}): killed ${killedAfterMs} ms after the first start and a redeploy, ${WHILE_DOWN} events published while down, ${lost.length} lost, ${repeated.length} of ${beforeKill.length} delivered before the kill sent again`,
    );
    expect(lost).toEqual([]);
    expect(afterRestart.length).toBe(new Set(afterRestart).size);

    // Stopped (the store flushes on stop) and started again: the position is in the context on
    // disk now, and the node's own file, its copy until then, is gone.
    expect(existsSync(stateFile)).toBe(true);
    await red.stop();
    expect(storedInContext()).toMatchObject({ format: 'observation-position' });
    const beforeSecondRestart = sim.control.stats().connectionsTotal;
    await red.start();
    await sentinelThrough(beforeSecondRestart, 'second restart');
    expect(existsSync(stateFile)).toBe(false);
  }, 180_000);
});
