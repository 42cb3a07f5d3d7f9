import type { Simulator } from '@observation-service/simulator';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { actionType, packageName, triggerType } from './harness/n8n-engine.mts';

/**
 * One node of every kind our package has, as a workflow saved with the first published version
 * (0.1.0) holds it: type, typeVersion and parameters. n8n runs a saved node with the typeVersion
 * it was saved with, so each must keep running, and keep giving the fields it gave then
 * (`__fixtures__/first-version-outputs.json`), in every later version: a change that would
 * alter them gets a new typeVersion instead (README, "Node versions").
 */
export interface SavedNode {
  name: string;
  type: string;
  typeVersion: number;
  parameters: INodeParameters;
  /** The item the node is given, for nodes that read the previous node's output. */
  input?: (sim: Simulator) => IDataObject;
}

const byId = (value: number | string) => ({ __rl: true, mode: 'id', value: String(value) });
const taskTriggerType = `${packageName}.observationTaskTrigger`;

export function savedNodes(sim: Simulator): SavedNode[] {
  const task = sim.world.tasks[0];
  const location = sim.world.locations[0];
  if (!task || !location) throw new Error('the simulator seeded no task or location');
  const eventTypeId = task.events[0]?.id ?? 2001;
  const action = (name: string, parameters: INodeParameters, input?: SavedNode['input']): SavedNode => ({
    name,
    type: actionType,
    typeVersion: 1,
    parameters,
    ...(input ? { input } : {}),
  });
  // A seeded event (its media exist from the start), as an Event: Get Many item would carry it.
  const seededImage = (sim: Simulator) => {
    const record = sim.getEvent(1) as { image_url?: string } | undefined;
    if (!record?.image_url) throw new Error('the simulator has no seeded event with a snapshot');
    return { imageUrl: record.image_url };
  };
  return [
    action('Event: Get Many', { resource: 'event', operation: 'getMany', returnAll: false, limit: 20 }),
    action('Event: Get Type', { resource: 'event', operation: 'getType', eventTypeId }),
    action('Location: Get', { resource: 'location', operation: 'get', location: byId(location.id) }),
    action('Location: Get Many', { resource: 'location', operation: 'getMany', returnAll: false, limit: 20 }),
    action('Task: Get', { resource: 'task', operation: 'get', task: byId(task.id) }),
    action('Task: Get Many', { resource: 'task', operation: 'getMany', returnAll: false, limit: 20 }),
    action(
      'Media: Download Snapshot',
      {
        resource: 'media',
        operation: 'downloadSnapshot',
        url: '={{ $json.imageUrl }}',
        binaryPropertyName: 'data',
      },
      seededImage,
    ),
    {
      name: 'Observation Trigger',
      type: triggerType,
      typeVersion: 1,
      parameters: { tasks: 'all', filters: {}, options: {} },
    },
    {
      name: 'Task Trigger v1',
      type: taskTriggerType,
      typeVersion: 1,
      parameters: { pollIntervalSeconds: 1, tasks: 'all' },
    },
    {
      name: 'Task Trigger v2',
      type: taskTriggerType,
      typeVersion: 2,
      parameters: {
        pollTimes: { item: [{ mode: 'everyMinute' }] },
        tasks: 'all',
        changes: ['changed'],
        filters: {},
      },
    },
  ];
}
