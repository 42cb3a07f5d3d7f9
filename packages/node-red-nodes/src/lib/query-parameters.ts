import type { NodeMessage } from './node-red-api.js';

/** The query node's operations (editor values). */
export const OPERATIONS = [
  'history',
  'eventType',
  'locations',
  'location',
  'tasks',
  'task',
  'snapshot',
  'annotatedSnapshot',
  'clip',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * Parameters the editor offers as typedInputs; each one can also be set per message through the
 * msg property of the same name (documented in the node's help), which wins over the editor.
 */
export const PARAMETERS = [
  'taskId',
  'eventId',
  'eventName',
  'locationId',
  'cameraId',
  'organizationId',
  'startTime',
  'endTime',
  'ids',
  'limit',
  'offset',
  'source',
  'objects',
  'format',
] as const;
export type Parameter = (typeof PARAMETERS)[number];

/** Which parameters each operation reads. */
export const OPERATION_PARAMETERS: Record<Operation, readonly Parameter[]> = {
  history: [
    'startTime',
    'endTime',
    'eventName',
    'taskId',
    'eventId',
    'locationId',
    'cameraId',
    'ids',
    'limit',
    'offset',
  ],
  eventType: ['eventId'],
  locations: ['organizationId', 'ids', 'limit', 'offset'],
  location: ['locationId'],
  tasks: ['locationId', 'cameraId', 'ids', 'limit', 'offset'],
  task: ['taskId'],
  snapshot: ['source'],
  annotatedSnapshot: ['source', 'objects', 'format'],
  clip: ['source'],
};

/** msg property that overrides a parameter; `source` (what to download) reads msg.url. */
export function messageProperty(parameter: Parameter): string {
  return parameter === 'source' ? 'url' : parameter;
}

export type Evaluate = (value: unknown, type: string, msg: NodeMessage) => Promise<unknown>;

/**
 * Values of the operation's parameters for one message: msg override first, then the editor's
 * typedInput. Empty values are left out so core applies the service defaults.
 */
export async function resolveParameters(
  operation: Operation,
  config: Record<string, unknown>,
  msg: NodeMessage,
  evaluate: Evaluate,
): Promise<Partial<Record<Parameter, unknown>>> {
  const values: Partial<Record<Parameter, unknown>> = {};
  for (const parameter of OPERATION_PARAMETERS[operation]) {
    const override = msg[messageProperty(parameter)];
    let value: unknown = override;
    if (value === undefined || value === null || value === '') {
      const type =
        typeof config[`${parameter}Type`] === 'string' ? String(config[`${parameter}Type`]) : 'str';
      const raw = config[parameter];
      value = raw === undefined || raw === '' ? undefined : await evaluate(raw, type, msg);
    }
    if (value !== undefined && value !== null && value !== '') values[parameter] = value;
  }
  return values;
}
