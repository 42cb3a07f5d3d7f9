import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNode, serverNode, sink, statusNode, tab, taskWatchNode } from './harness/flows.js';
import { type FlowNode, NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

const REDEPLOYS = 100;

/** Active handles by kind (sockets, timers, …) of this process. */
function resources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

function processListeners(): number {
  return process.eventNames().reduce((sum, name) => sum + process.listenerCount(name), 0);
}

describe(`redeploy churn (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeAll(async () => {
    sim = await startSimulator({ seed: 21 });
    red = await NodeRedHarness.start();
    process.on('warning', onWarning);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await red?.stop();
    await sim?.stop();
  });

  function flow(round: number): FlowNode[] {
    // Three events nodes, each with its own connection on the config node's client; the name
    // changes every round so each deploy really replaces them (and the task watch).
    return [
      tab(),
      serverNode(sim),
      sink('out'),
      sink('status'),
      statusNode('status-node', 'status'),
      eventsNode('events-a', ['out'], { name: `a ${round}` }),
      eventsNode('events-b', ['out'], { name: `b ${round}`, eventNames: 'never_matches' }),
      eventsNode('events-c', ['out'], { name: `c ${round}` }),
      // A task watch too: each one polls at once and must leave no timer behind when replaced.
      taskWatchNode('watch', [], { name: `w ${round}`, intervalSeconds: 30 }),
    ];
  }

  /** The newest status an events node of the latest deploy showed. */
  function lastStatus(nodeId: string): { fill?: string } | undefined {
    return red
      .messages('status')
      .map((msg) => (msg as { status: { fill?: string; source: { id: string } } }).status)
      .filter((status) => status.source.id === nodeId)
      .at(-1);
  }

  async function settle() {
    // The latest deploy's connection is open (the one open socket could otherwise still be the
    // previous deploy's, closing, with an event sent now going nowhere).
    await waitUntil(() => lastStatus('events-a')?.fill === 'green', 10_000, 'events-a connected');
    // One socket per events node (each has its own position), none left from earlier deploys.
    await waitUntil(() => sim.control.stats().openSockets === 3, 10_000, 'three open sockets');
    const server = red.node<{ openSubscriptions: number }>('server-1');
    await waitUntil(() => server?.openSubscriptions === 3, 10_000, 'three core subscriptions');
  }

  it(`${REDEPLOYS} full redeploys leave one socket per node and no growing handles or listeners`, async () => {
    await red.deploy(flow(0));
    await settle();
    // Baseline after a first round of churn, so lazily created pools and caches are counted.
    for (let round = 1; round <= 10; round += 1) await red.deploy(flow(round));
    await settle();
    red.clear();
    const baseline = { resources: resources(), listeners: processListeners() };
    const connectionsBefore = sim.control.stats().connectionsTotal;

    const started = Date.now();
    for (let round = 11; round < 11 + REDEPLOYS; round += 1) {
      // settle() reads the statuses of the last deploy only.
      if (round === 10 + REDEPLOYS) red.clear();
      await red.deploy(flow(round));
    }
    const churnMs = Date.now() - started;
    await settle();

    // Each node reads a little history when it starts, on the client's keep-alive pool: idle
    // pooled connections close within undici's keep-alive timeout (4 s), a leaked socket never.
    await waitUntil(
      () =>
        Object.entries(resources()).every(([kind, count]) => count <= (baseline.resources[kind] ?? 0) + 1),
      10_000,
      'handles back to the baseline',
    ).catch(() => undefined);
    const stats = sim.control.stats();
    const after = { resources: resources(), listeners: processListeners() };
    console.log(
      `[churn ${nodeRedPackage}] ${REDEPLOYS} redeploys in ${churnMs} ms; openSockets=${stats.openSockets}; ` +
        `connections opened during churn=${stats.connectionsTotal - connectionsBefore}; ` +
        `handles before=${JSON.stringify(baseline.resources)} after=${JSON.stringify(after.resources)}; ` +
        `process listeners before=${baseline.listeners} after=${after.listeners}`,
    );

    expect(stats.openSockets).toBe(3);
    expect(after.listeners).toBe(baseline.listeners);
    // Sockets and timers of the finished rounds are gone: no kind of handle grew.
    for (const [kind, count] of Object.entries(after.resources)) {
      expect(count, kind).toBeLessThanOrEqual((baseline.resources[kind] ?? 0) + 1);
    }
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);

    // Only the nodes of the last deploy are alive: one event reaches a and c once each. A second
    // event is the evidence that nothing more of the first is coming.
    red.clear();
    const [event, sentinel] = await sim.control.emit(2);
    const messages = await red.waitFor('out', (list) => list.length >= 4);
    const idsSeen = messages.map((msg) => (msg.payload as { id: number }).id);
    expect(idsSeen.filter((id) => id === event?.id)).toHaveLength(2);
    expect(idsSeen.filter((id) => id === sentinel?.id)).toHaveLength(2);
    // A cap, not a figure: 110 deploys take 8-15 s on a quiet machine, beyond 30 s beside the n8n
    // e2e on the other core.
  }, 120_000);

  it('removing every events node closes the connection; removing the config node closes the client', async () => {
    await red.deploy([tab(), serverNode(sim), sink('out')]);
    await waitUntil(() => sim.control.stats().openSockets === 0, 10_000, 'no open socket');
    await red.deploy([tab()]);
    expect(sim.control.stats().openSockets).toBe(0);
  });
});
