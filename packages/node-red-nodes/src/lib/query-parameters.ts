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
 * Parameters the editor offers as typedInputs; each one can also come from the msg property of
 * the same name (documented in the node's help), as `MessagePrecedence` says.
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

/**
 * msg property that supplies a parameter; `source` (what to download) reads msg.url, and the
 * event type (`eventId`, the editor field's name) msg.eventTypeId, the name an event message
 * carries it under, so an events node's message looks its type up as it is.
 */
export function messageProperty(parameter: Parameter): string {
  if (parameter === 'source') return 'url';
  return parameter === 'eventId' ? 'eventTypeId' : parameter;
}

/** The msg property's value for a parameter; flows made before eventTypeId set msg.eventId. */
function messageValue(msg: NodeMessage, parameter: Parameter): unknown {
  const value = msg[messageProperty(parameter)];
  return parameter === 'eventId' && isEmpty(value) ? msg.eventId : value;
}

/**
 * How msg properties combine with the editor's fields (the node's `msgProperties` setting):
 * `fill` (Node-RED's rule, as in mqtt out or http request) takes a msg property only for a field
 * left empty, so a leftover `msg.limit` from upstream cannot change a configured query; `override`
 * lets a msg property win over a field, as versions before this setting did.
 */
export const MESSAGE_PRECEDENCES = ['fill', 'override'] as const;
export type MessagePrecedence = (typeof MESSAGE_PRECEDENCES)[number];

export type Evaluate = (value: unknown, type: string, msg: NodeMessage) => Promise<unknown>;

export interface ResolvedParameters {
  values: Partial<Record<Parameter, unknown>>;
  /** Parameters whose editor field a msg property overrode (`override` only). */
  overridden: Parameter[];
}

const isEmpty = (value: unknown): boolean => value === undefined || value === null || value === '';

/**
 * Values of the operation's parameters for one message. A field set in the editor is evaluated
 * (typedInput: a `msg` type reads the property it names); a field left empty takes the msg property
 * of the parameter's name; with `override`, that msg property wins over the field. Empty values are
 * left out so core applies the service defaults.
 */
export async function resolveParameters(
  operation: Operation,
  config: Record<string, unknown>,
  msg: NodeMessage,
  evaluate: Evaluate,
  precedence: MessagePrecedence,
): Promise<ResolvedParameters> {
  const values: Partial<Record<Parameter, unknown>> = {};
  const overridden: Parameter[] = [];
  for (const parameter of OPERATION_PARAMETERS[operation]) {
    const fromMessage = messageValue(msg, parameter);
    const field = config[parameter];
    let value: unknown;
    if (!isEmpty(fromMessage) && (isEmpty(field) || precedence === 'override')) {
      value = fromMessage;
      if (!isEmpty(field)) overridden.push(parameter);
    } else if (!isEmpty(field)) {
      const type = config[`${parameter}Type`];
      value = await evaluate(field, typeof type === 'string' ? type : 'str', msg);
    }
    if (!isEmpty(value)) values[parameter] = value;
  }
  return { values, overridden };
}
