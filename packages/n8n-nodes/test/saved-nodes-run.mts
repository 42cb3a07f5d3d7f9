import type { Simulator } from '@observation-service/simulator';
import type { INodeExecutionData } from 'n8n-workflow';
import {
  activateTrigger,
  type Engine,
  makeNode,
  pollTrigger,
  runNode,
  triggerType,
} from './harness/n8n-engine.mts';
import { eventually } from './harness/simulator-credentials.mts';
import type { SavedNode } from './saved-nodes.mts';

/** What a saved node gave: the fields every one of its items had, and its binary fields. */
export interface SavedOutput {
  keys: string[];
  binary: string[];
}

function outputOf(items: INodeExecutionData[]): SavedOutput {
  if (items.length === 0) throw new Error('the node gave no item');
  const keys = items
    .map((item) => new Set(Object.keys(item.json)))
    .reduce((common, next) => new Set([...common].filter((key) => next.has(key))));
  return { keys: [...keys].sort(), binary: Object.keys(items[0]?.binary ?? {}).sort() };
}

/**
 * Runs a saved node as n8n would run it in production (an action in a workflow, a trigger
 * activated, a polling trigger polled) against the simulator, with what makes it output items: a
 * few published events, a task whose status changes.
 */
export async function runSavedNode(engine: Engine, sim: Simulator, saved: SavedNode): Promise<SavedOutput> {
  const node = makeNode(saved.type, saved.parameters, saved.name, saved.typeVersion);
  const changeATask = (index: number) => {
    const task = sim.world.tasks[index];
    if (!task) throw new Error('the simulator seeded too few tasks');
    sim.control.setTaskStatus(
      task.id,
      task.status.startsWith('operating') ? 'non-operating, paused' : 'operating, normal',
    );
  };
  if (saved.type === triggerType) {
    const trigger = await activateTrigger(engine, node);
    try {
      await eventually(() => sim.control.stats().openSockets >= 1, 15_000);
      await sim.control.emit(5, { latenessMs: 0 });
      return outputOf(await trigger.waitForItems(5, 30_000));
    } finally {
      await trigger.response?.closeFunction?.();
    }
  }
  if (saved.type.endsWith('.observationTaskTrigger') && saved.typeVersion === 1) {
    // Version 1 runs its own loop: its second request means the baseline is set.
    const before = sim.control.stats().requests;
    const trigger = await activateTrigger(engine, node);
    try {
      await eventually(() => sim.control.stats().requests >= before + 2, 15_000);
      changeATask(1);
      return outputOf(await trigger.waitForItems(1, 30_000));
    } finally {
      await trigger.response?.closeFunction?.();
    }
  }
  if (saved.type.endsWith('.observationTaskTrigger')) {
    const baseline = await pollTrigger(engine, node);
    changeATask(2);
    return outputOf((await pollTrigger(engine, node, baseline.staticData)).items ?? []);
  }
  const run = await runNode(engine, node, saved.input ? [{ json: saved.input(sim) }] : undefined);
  if (run.error) throw run.error;
  return outputOf(run.items);
}
