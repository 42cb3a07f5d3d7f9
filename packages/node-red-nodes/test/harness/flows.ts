import type { FlowNode } from './node-red.js';

export const TAB = 'tab-1';

export interface SimulatorAddress {
  apiUrl: string;
  serviceId: string;
  token: string;
  credentials: { email: string; password: string };
}

/** Flow tab every test flow lives on. */
export function tab(id = TAB): FlowNode {
  return { id, type: 'tab', label: 'observation tests' };
}

/** The config node pointing at the simulator; credentials ride along as the editor sends them. */
export function serverNode(
  simulator: SimulatorAddress,
  overrides: Record<string, unknown> = {},
  id = 'server-1',
): FlowNode {
  return {
    id,
    type: 'observation-server',
    name: 'simulator',
    url: simulator.apiUrl,
    wsUrl: '',
    serviceId: simulator.serviceId,
    form: 'auto',
    authType: 'token',
    trustedMediaHosts: '',
    credentials: { token: simulator.token },
    ...overrides,
  };
}

export function sink(id: string, z = TAB): FlowNode {
  return { id, type: 'test-sink', z, wires: [] };
}

export function source(id: string, wires: string[], z = TAB): FlowNode {
  return { id, type: 'test-source', z, wires: [wires] };
}

export function eventsNode(
  id: string,
  wires: string[],
  overrides: Record<string, unknown> = {},
  z = TAB,
): FlowNode {
  return {
    id,
    type: 'observation-events',
    z,
    name: '',
    server: 'server-1',
    taskMode: 'all',
    tasks: [],
    taskIds: '',
    eventNames: '',
    minConfidence: '',
    objectNames: '',
    warningsOnly: false,
    attachSnapshot: false,
    lookBackMinutes: 60,
    wires: [wires],
    ...overrides,
  };
}

export function queryNode(
  id: string,
  wires: string[],
  overrides: Record<string, unknown> = {},
  z = TAB,
): FlowNode {
  return {
    id,
    type: 'observation-query',
    z,
    name: '',
    server: 'server-1',
    operation: 'history',
    pages: 'one',
    maxItems: 1000,
    output: 'array',
    // What a node added in the editor now has; a flow saved before the setting has none.
    msgProperties: 'fill',
    source: 'payload',
    sourceType: 'msg',
    wires: [wires],
    ...overrides,
  };
}

export function taskWatchNode(
  id: string,
  wires: string[],
  overrides: Record<string, unknown> = {},
  z = TAB,
): FlowNode {
  return {
    id,
    type: 'observation-task-watch',
    z,
    name: '',
    server: 'server-1',
    intervalSeconds: 1,
    taskMode: 'all',
    tasks: [],
    taskIds: '',
    emitInitial: false,
    wires: [wires],
    ...overrides,
  };
}

/** A Catch node for the whole tab, wired to a sink. */
export function catchNode(id: string, sinkId: string, z = TAB): FlowNode {
  return { id, type: 'catch', z, name: '', scope: null, uncaught: false, wires: [[sinkId]] };
}

/** A Status node for the whole tab, wired to a sink. */
export function statusNode(id: string, sinkId: string, z = TAB): FlowNode {
  return { id, type: 'status', z, name: '', scope: null, wires: [[sinkId]] };
}

/**
 * Node-RED's join node as the editor saves it, joining `msg.payload`s into an array; `overrides`
 * sets its mode (`custom`: after `count` parts or `timeout` seconds; `auto`: a split's parts).
 */
export function joinNode(
  id: string,
  wires: string[],
  overrides: Record<string, unknown> = {},
  z = TAB,
): FlowNode {
  return {
    id,
    type: 'join',
    z,
    mode: 'custom',
    build: 'array',
    property: 'payload',
    propertyType: 'msg',
    key: 'topic',
    joiner: '\\n',
    joinerType: 'str',
    accumulate: false,
    timeout: '',
    count: '',
    reduceRight: false,
    wires: [wires],
    ...overrides,
  };
}

/** Node-RED's split node as the editor saves it: an array into one message per element. */
export function splitNode(id: string, wires: string[], z = TAB): FlowNode {
  return {
    id,
    type: 'split',
    z,
    splt: '\\n',
    spltType: 'str',
    arraySplt: 1,
    arraySpltType: 'len',
    stream: false,
    addname: '',
    wires: [wires],
  };
}
