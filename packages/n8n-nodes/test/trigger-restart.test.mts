import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { IDataObject, INode, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  type ActivationOptions,
  type ActiveTrigger,
  activateTrigger,
  createEngine,
  type Engine,
  httpRequestType,
  makeNode,
  triggerType,
} from './harness/n8n-engine.mts';
import { eventually, tokenCredential } from './harness/simulator-credentials.mts';

/**
 * What a kill of n8n leaves, through n8n's engine: executions the trigger started and n8n did not
 * finish (held here, as a kill leaves them), n8n's deduplication index kept across the restart
 * (the harness's `deduplication` set), and the static data n8n had saved at the trigger's last
 * emit (n8n saves it at each emit; a kill loses whatever changed since).
 */
let sim: Simulator;
let engine: Engine;
const active: ActiveTrigger[] = [];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 32, historySize: 0 });
  engine = await createEngine(tokenCredential(sim));
});
afterEach(async () => {
  for (const trigger of active.splice(0)) await trigger.close();
  await eventually(() => sim.control.stats().openSockets === 0);
});
afterAll(async () => {
  await sim.stop();
});

/** The workflow's trigger node: the same node (and id) in every run of n8n. */
const triggerNode = (parameters: INodeParameters) => makeNode(triggerType, parameters, 'Observation Trigger');

async function activate(node: INode, staticData: IDataObject, options: ActivationOptions) {
  const trigger = await activateTrigger(
    engine,
    node,
    JSON.parse(JSON.stringify(staticData)) as IDataObject,
    'trigger',
    // Each test here restarts from what n8n saved at the last emit.
    { savedAtEmit: true, ...options },
  );
  active.push(trigger);
  return trigger;
}

const idsOf = (batches: INodeExecutionData[][][]) =>
  batches.flatMap((batch) => (batch[0] ?? []).map((item) => item.json.id));
const emitOne = async () => {
  const [event] = await sim.control.emit(1, { latenessMs: 0 });
  return event?.id as number;
};
/** The batches core's position lists as handed over and not finished (batch key: the event id). */
const unfinishedKeys = (staticData: IDataObject) =>
  Object.keys(
    ((
      (staticData['node:Observation Trigger'] as IDataObject | undefined)?.position as IDataObject | undefined
    )?.unfinished as IDataObject | undefined) ?? {},
  );

/**
 * First life: e1, e2 and e3 start executions n8n holds unfinished; e1 finishes; e4 starts (n8n
 * saves static data at that emit: e2, e3 and e4 unfinished). Then the kill: what n8n saved is all
 * the next start has.
 */
async function killedWithUnfinished(options: INodeParameters, deduplication: Set<string>) {
  const node = triggerNode({ tasks: 'all', options });
  const first = await activate(node, {}, { holdExecutions: true, deduplication });
  await eventually(() => sim.control.stats().openSockets === 1);
  // The first activation is live from its start second: the events come after it.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const events = [await emitOne(), await emitOne(), await emitOne()];
  await eventually(() => first.ran.length === 3, 10_000);
  await first.release(1);
  if (options.afterRestart !== 'retryByHand')
    await eventually(() => !unfinishedKeys(first.staticData).includes(String(events[0])), 10_000);
  events.push(await emitOne());
  await eventually(() => first.ran.length === 4, 10_000);
  const saved = first.savedAtLastEmit;
  // The kill: the subscription goes (closing here only frees the socket; its last save is not used).
  await first.close();
  active.splice(active.indexOf(first), 1);
  return { node, events, saved };
}

describe('after n8n is killed (activation `init`), with n8n’s deduplication kept', () => {
  test('default: the events of executions n8n did not finish run again by themselves, on their next attempt (a new key); a finished one does not; a second kill moves to the attempt after', async () => {
    const deduplication = new Set<string>();
    const { node, events, saved } = await killedWithUnfinished({}, deduplication);
    const [e1, e2, e3, e4] = events;
    expect(unfinishedKeys(saved)).toHaveLength(3);

    const second = await activate(node, saved, {
      activation: 'init',
      holdExecutions: true,
      deduplication,
    });
    const e5 = await emitOne();
    await eventually(() => idsOf(second.ran).includes(e5), 20_000);
    // Each restarted execution carries its event; e1 had finished and runs no second time.
    expect(idsOf(second.ran)).toEqual([e2, e3, e4, e5]);
    expect(idsOf(second.ran)).not.toContain(e1);
    expect(second.keys.filter((key) => key?.endsWith(':attempt2'))).toHaveLength(3);

    // Killed again before any of them finished: the next start hands them over on attempt 3.
    const savedAgain = second.savedAtLastEmit;
    await second.close();
    active.splice(active.indexOf(second), 1);
    const third = await activate(node, savedAgain, { activation: 'init', deduplication });
    const e6 = await emitOne();
    await eventually(() => idsOf(third.ran).includes(e6), 20_000);
    expect(idsOf(third.ran)).toEqual([e2, e3, e4, e5, e6]);
    expect(third.keys.filter((key) => key?.endsWith(':attempt3'))).toHaveLength(3);
    // Once they finished, the list is empty again.
    await eventually(() => unfinishedKeys(third.staticData).length === 0, 10_000);
  }, 60_000);

  test('"Leave Them for Retry": n8n refuses the caught-up events, none runs again, and nothing is kept in static data', async () => {
    const deduplication = new Set<string>();
    const { node, events, saved } = await killedWithUnfinished(
      { afterRestart: 'retryByHand' },
      deduplication,
    );
    expect(unfinishedKeys(saved)).toEqual([]);
    const second = await activate(node, saved, { activation: 'init', deduplication });
    const sentinel = await emitOne();
    await eventually(() => idsOf(second.ran).includes(sentinel), 20_000);
    // Caught up and refused (e1 may be covered by the saved position already), then the sentinel.
    expect(idsOf(second.emitted)).toEqual(expect.arrayContaining(events.slice(1)));
    expect(idsOf(second.ran)).toEqual([sentinel]);
  }, 60_000);

  test('a user’s activation (after a deactivation, n8n let the executions end) runs nothing again', async () => {
    const deduplication = new Set<string>();
    const { node, events, saved } = await killedWithUnfinished({}, deduplication);
    const second = await activate(
      { ...node, parameters: { tasks: 'all', options: { catchUp: true } } },
      saved,
      { deduplication },
    );
    const sentinel = await emitOne();
    await eventually(() => idsOf(second.ran).includes(sentinel), 20_000);
    expect(idsOf(second.emitted)).toEqual(expect.arrayContaining(events.slice(1)));
    expect(idsOf(second.ran)).toEqual([sentinel]);
  }, 60_000);
});

describe('an execution n8n could not start', () => {
  test('core hands the batch over again on its next attempt, under the next key, until n8n starts it; it runs once', async () => {
    const node = triggerNode({ tasks: 'all', options: {} });
    let failures = 2;
    const trigger = await activate(
      node,
      {},
      {
        deduplication: new Set(),
        // The first two emits (the event's first two tries) meet a database n8n cannot reach.
        failStart: () => (failures-- > 0 ? new Error('timeout exceeded when trying to connect') : undefined),
      },
    );
    await eventually(() => sim.control.stats().openSockets === 1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const event = await emitOne();
    await eventually(() => idsOf(trigger.ran).includes(event), 20_000);
    // Emitted after the event ran: the count below has nothing else to wait for.
    const sentinel = await emitOne();
    await eventually(() => idsOf(trigger.ran).includes(sentinel), 20_000);
    const scope = (trigger.keys[0] as string).slice(0, -String(event).length);
    expect(trigger.keys).toEqual([
      `${scope}${event}`,
      `${scope}${event}:attempt2`,
      `${scope}${event}:attempt3`,
      `${scope}${sentinel}`,
    ]);
    expect(idsOf(trigger.ran)).toEqual([event, sentinel]);
  }, 60_000);
});

describe('deactivation', () => {
  test('events still waiting for their snapshot start no execution once n8n deactivates the trigger; the next activation runs them, with their images', async () => {
    const node = triggerNode({
      tasks: 'all',
      options: { attachSnapshot: true, snapshotWaitSeconds: 30, catchUp: true },
    });
    const first = await activate(node, {}, {});
    await eventually(() => sim.control.stats().openSockets === 1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // Snapshots still being written (404, asked again) and answers slow to come: at the close,
    // some downloads are in flight and some wait to ask again.
    const before = sim.control.stats();
    const events = [
      ...(await sim.control.emit(3, { latenessMs: 0, snapshotDelayMs: 2_000 })),
      ...(await sim.control.emit(3, { latenessMs: 0, snapshotDelayMs: 0 })),
    ].map((event) => event.id);
    sim.control.delayResponses(1_000);
    // Each snapshot was asked for: the events wait in the trigger for their images.
    await eventually(() => sim.control.stats().mediaRequests >= before.mediaRequests + 6, 10_000);
    await first.close();
    active.splice(active.indexOf(first), 1);
    sim.control.delayResponses(0);

    const second = await activate(node, first.staticData, {});
    // The catch-up (no position yet: from the look-back) also reads the other tests' events.
    const ours = () =>
      second.ran.flatMap(([items]) =>
        (items ?? []).filter((item) => events.includes(item.json.id as number)),
      );
    await eventually(() => ours().length >= events.length, 30_000);
    expect(ours().map((item) => item.json.id)).toEqual(events);
    for (const item of ours()) expect(item.binary?.data?.mimeType).toMatch(/^image\//);
    // Checked after the next activation ran them: the closed trigger started none, not even late.
    expect(first.emitted).toEqual([]);
  }, 60_000);
});

describe('a workflow whose nodes save static data (n8n can save it without the trigger’s key)', () => {
  // n8n's task runner hands a Code node's copy of the static data back whole, and the execution
  // saves it whole: the e2e's crash test found `{ global: { n: 1 } }` stored, the trigger's key
  // gone, and the restart then started live, skipping the downtime. A node after the trigger whose
  // parameters mention $getWorkflowStaticData tells the trigger its store is shared: here the
  // HTTP Request stand-in's URL (its only parameter; n8n's Workflow drops undeclared ones) carries
  // the name in its query, which the local chat ignores.
  test.each([
    ['uses', true],
    ['does not use', false],
  ])(
    'an n8n restart that finds no position, when the next node %s static data: the downtime is caught up only then',
    async (_uses, uses) => {
      const chat = createServer((_request, response) => response.end('{}'));
      await new Promise<void>((resolve) => chat.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(chat.address() as AddressInfo).port}/chat`;
        const next = {
          ...makeNode(
            httpRequestType,
            { url: uses ? `${url}?like=$getWorkflowStaticData` : url },
            'Post to Chat',
          ),
          credentials: {},
        };
        // Published while n8n was down, within Max Catch-Up (60 min by default).
        const downtime = (await sim.control.emit(2, { latenessMs: 0 })).map((event) => event.id);
        const node = triggerNode({ tasks: 'all', options: {} });
        const restarted = await activate(node, { global: { n: 1 } }, { activation: 'init', next });
        await eventually(() => sim.control.stats().openSockets === 1);
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        // A live sentinel: once it ran, what the start caught up ran before it.
        const sentinel = await emitOne();
        await eventually(() => idsOf(restarted.ran).includes(sentinel), 20_000);
        const ran = idsOf(restarted.ran);
        if (uses) for (const id of downtime) expect(ran).toContain(id);
        else for (const id of downtime) expect(ran).not.toContain(id);
        expect(ran.at(-1)).toBe(sentinel);
      } finally {
        chat.close();
      }
    },
    60_000,
  );
});
