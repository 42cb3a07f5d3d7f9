import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { type IDataObject, Workflow } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  activateTrigger,
  createEngine,
  type Engine,
  packageDir,
  pollTrigger,
  runNode,
  runWorkflow,
  type WorkflowFile,
} from './harness/n8n-engine.mts';
import { tokenCredential } from './harness/simulator-credentials.mts';

const examplesDir = join(packageDir, 'examples');
const exampleFiles = readdirSync(examplesDir).filter((name) => name.endsWith('.workflow.json'));
const readExample = (name: string) =>
  JSON.parse(readFileSync(join(examplesDir, name), 'utf8')) as WorkflowFile & { id: string };

let sim: Simulator;
let engine: Engine;

beforeAll(async () => {
  // What `npx observation-simulator` starts with (its CLI defaults): realistic delays, among them
  // snapshots written 0.5 to 2 s after their event is published, and 2 live events a second.
  sim = await startSimulator({ port: 0, seed: 1, rate: 2, realism: 'mild', historySize: 5000 });
  engine = await createEngine(tokenCredential(sim));
});
afterAll(async () => {
  await sim?.stop();
});

describe('the shipped example workflows', () => {
  test('each has its own workflow id and node ids, so importing them all clashes nowhere', () => {
    const workflowIds = exampleFiles.map((name) => readExample(name).id);
    expect(new Set(workflowIds).size).toBe(workflowIds.length);
    const nodeIds = exampleFiles.flatMap((name) => readExample(name).nodes.map((node) => node.id));
    expect(new Set(nodeIds).size).toBe(nodeIds.length);
    // One credential for all of them: after the first import the user picks it once.
    const credentials = new Set(
      exampleFiles.flatMap((name) =>
        readExample(name).nodes.flatMap((node) =>
          Object.values(node.credentials ?? {}).map((credential) => JSON.stringify(credential)),
        ),
      ),
    );
    expect([...credentials]).toEqual([
      JSON.stringify({ id: 'obsCredential01', name: 'Observation account' }),
    ]);
  });

  test('"tasks, recent events and a snapshot" runs on its first try, though the newest snapshots are not written yet', {
    timeout: 60_000,
  }, async () => {
    const file = readExample('query-tasks-events-snapshot.workflow.json');
    // The newest event of each listed task was just published; its snapshot comes 2 s later, as a
    // real service writes it (before the download waited, this run failed with an HTTP 404).
    const tasks = sim.world.tasks.slice(0, 3).map((task) => task.id);
    await sim.control.emit(3, { taskIds: tasks, latenessMs: 0, snapshotDelayMs: 2_000 });
    const run = await runWorkflow(engine, file, 'Start');
    const runData = run.data.resultData.runData;
    const items = (name: string) => runData[name]?.[0]?.data?.main?.[0] ?? [];
    const errors = Object.entries(runData)
      .map(([name, runs]) => [name, runs[0]?.error?.message] as const)
      .filter(([, message]) => message !== undefined);
    expect(errors).toEqual([]);
    expect(run.data.resultData.error).toBeUndefined();
    expect(items('Tasks')).toHaveLength(3);
    const events = items('Recent Events');
    expect(events.length).toBeGreaterThanOrEqual(3);
    const snapshots = items('Snapshot');
    expect(snapshots).toHaveLength(events.length);
    for (const item of snapshots) expect(item.binary?.data?.mimeType).toMatch(/^image\//);
    // The error branch the example shows: a task that does not exist, as an item, not a failure.
    const unknown = items('Unknown Task');
    expect(unknown).toHaveLength(1);
    expect(String(unknown[0]?.json.error)).toMatch(/404/);
  });

  // The trigger examples' second node is n8n's Set node (n8n-nodes-base, not a dependency here):
  // their Observation node runs as n8n activates it, and what it emits is what Set receives.
  test('"person alert with snapshot": its trigger, as configured, starts executions with the snapshot attached', {
    timeout: 60_000,
  }, async () => {
    const file = readExample('person-alert-with-snapshot.workflow.json');
    const node = file.nodes.find((candidate) => candidate.name === 'Observation Trigger');
    if (!node) throw new Error('no trigger in the example');
    const trigger = await activateTrigger(engine, node);
    try {
      const items = await trigger.waitForItemsWhere((list) => list.length > 0, 45_000);
      for (const item of items) {
        const people = (item.json.objects as Array<{ name: string; confidence: number }>).filter(
          (object) => object.name === 'person' && object.confidence >= 0.6,
        );
        expect(people.length).toBeGreaterThan(0);
        // The snapshot, written after the event was published, was waited for and attached.
        expect(item.binary?.data?.mimeType).toMatch(/^image\//);
      }
      expect(trigger.errors).toEqual([]);
    } finally {
      await trigger.close();
    }
  });

  test('"task outage alert": its polling trigger, as configured, reports a task that stops operating', async () => {
    const file = readExample('task-outage-alert.workflow.json');
    const node = file.nodes.find((candidate) => candidate.name === 'Observation Task Trigger');
    if (!node) throw new Error('no task trigger in the example');
    const first = await pollTrigger(engine, node);
    expect(first.items).toBeNull();
    const task = sim.world.tasks.find((candidate) => candidate.status.startsWith('operating'));
    if (!task) throw new Error('no operating task');
    sim.control.setTaskStatus(task.id, 'non-operating, terminated');
    const second = await pollTrigger(engine, node, first.staticData);
    expect(second.items?.map((item) => [item.json.type, item.json.taskId, item.json.status])).toEqual([
      ['changed', task.id, 'non-operating, terminated'],
    ]);
  });

  test('"task outage alert": a test run shows the tasks that are down now, or one sample, and its text says which', async () => {
    const file = readExample('task-outage-alert.workflow.json');
    const trigger = file.nodes.find((candidate) => candidate.name === 'Observation Task Trigger');
    const alert = file.nodes.find((candidate) => candidate.name === 'Alert Text');
    if (!trigger || !alert) throw new Error('the example lost a node');
    const expression = (
      alert.parameters as { assignments: { assignments: Array<{ name: string; value: string }> } }
    ).assignments.assignments.find((assignment) => assignment.name === 'text')?.value;
    // The Alert Text node's expression, evaluated by n8n's expression engine on each item as its
    // input (the Set node belongs to n8n-nodes-base, which the harness does not load, so the
    // expression runs in a workflow of the trigger alone).
    const texts = (items: Array<{ json: IDataObject }>) => {
      const workflow = new Workflow({
        nodes: [trigger],
        connections: {},
        active: false,
        nodeTypes: engine.nodeTypes,
      });
      return items.map((item) =>
        workflow.expression.getParameterValue(
          expression ?? '',
          null,
          0,
          0,
          trigger.name,
          [item],
          'manual',
          {},
        ),
      );
    };
    const saved = new Map(sim.world.tasks.map((task) => [task.id, task.status]));
    try {
      for (const task of sim.world.tasks) sim.control.setTaskStatus(task.id, 'operating, normal');
      const calm = await runNode(engine, trigger, [{ json: {} }], 'manual');
      expect(calm.error).toBeUndefined();
      expect(calm.items).toHaveLength(1);
      expect(texts(calm.items)).toEqual([
        expect.stringMatching(/^\[Sample\] Task .+ is now non-operating, paused \(was operating, normal\)$/),
      ]);

      const [down] = sim.world.tasks;
      if (!down) throw new Error('no tasks');
      sim.control.setTaskStatus(down.id, 'non-operating, terminated');
      const outage = await runNode(engine, trigger, [{ json: {} }], 'manual');
      expect(outage.items.map((item) => item.json.taskId)).toEqual([down.id]);
      expect(texts(outage.items)).toEqual([
        `Task ${down.name} is non-operating, terminated (its current status, shown by a test run)`,
      ]);
    } finally {
      for (const [id, status] of saved) sim.control.setTaskStatus(id, status);
    }
  });
});
