/**
 * Runs the package's BUILT nodes (dist/, loaded by n8n-core's own PackageDirectoryLoader, the
 * way an n8n instance loads a community package) in n8n's real execution engine: WorkflowExecute
 * for the action node and manual trigger and poll runs, TriggersAndPollers + TriggerContext or
 * PollContext for production activations, LoadOptionsContext for editor calls, RoutingNode for
 * the credential's test request (as n8n's CredentialsTester runs it). Only the instance's
 * storage is replaced: credentials come from memory (credential-store.mts) instead of an
 * encrypted database.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ExecuteContext,
  ExecutionLifecycleHooks,
  LoadOptionsContext,
  PackageDirectoryLoader,
  PollContext,
  RoutingNode,
  TriggerContext,
  TriggersAndPollers,
  WorkflowExecute,
} from 'n8n-core';
import {
  createEmptyRunExecutionData,
  type IConnections,
  type ICredentialDataDecryptedObject,
  type ICredentialType,
  type IDataObject,
  type IExecuteData,
  type IExecuteFunctions,
  type INode,
  type INodeCredentialTestResult,
  type INodeExecutionData,
  type INodeListSearchResult,
  type INodeParameters,
  type INodePropertyOptions,
  type INodeType,
  type INodeTypes,
  type IRun,
  type IRunExecutionData,
  type ITriggerFunctions,
  type ITriggerResponse,
  type IVersionedNodeType,
  type IWorkflowExecuteAdditionalData,
  type JsonObject,
  NodeApiError,
  NodeHelpers,
  Workflow,
  type WorkflowActivateMode,
  type WorkflowExecuteMode,
} from 'n8n-workflow';
import { type CredentialStore, credentialStore, MemoryCredentialsHelper } from './credential-store.mts';

export const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const packageName = '@observation-service/n8n-nodes-observation';
export const actionType = `${packageName}.observation`;
export const triggerType = `${packageName}.observationTrigger`;
export const credentialType = 'observationApi';

let loaderPromise: Promise<PackageDirectoryLoader> | undefined;

/** Loads dist/ once per test file, exactly as n8n loads an installed package. */
export function loadPackage(): Promise<PackageDirectoryLoader> {
  loaderPromise ??= (async () => {
    const loader = new PackageDirectoryLoader(packageDir);
    await loader.loadAll();
    return loader;
  })();
  return loaderPromise;
}

class PackageNodeTypes implements INodeTypes {
  constructor(private readonly loader: PackageDirectoryLoader) {}

  getByName(nodeType: string): INodeType | IVersionedNodeType {
    const loaded = this.loader.nodeTypes[nodeType] ?? this.loader.nodeTypes[nodeType.split('.').pop() ?? ''];
    if (!loaded) throw new Error(`node type ${nodeType} is not in the package`);
    return loaded.type;
  }

  getByNameAndVersion(nodeType: string, version?: number): INodeType {
    return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
  }

  getKnownTypes() {
    return {};
  }
}

export interface Engine {
  nodeTypes: INodeTypes;
  /** The credential as n8n's database holds it (shared by engines that play several processes). */
  store: CredentialStore;
  credentialType: ICredentialType;
}

/** An engine with the credential `credentials`, or with `store` when another engine already uses it. */
export async function createEngine(
  credentials: ICredentialDataDecryptedObject | CredentialStore,
): Promise<Engine> {
  const loader = await loadPackage();
  const type = loader.credentialTypes[credentialType]?.type;
  if (!type) throw new Error(`credential type ${credentialType} is not in the package`);
  const store =
    'data' in credentials && 'saves' in credentials
      ? (credentials as CredentialStore)
      : credentialStore(credentials as ICredentialDataDecryptedObject);
  return { nodeTypes: new PackageNodeTypes(loader), store, credentialType: type };
}

function credentialsHelper(engine: Engine): MemoryCredentialsHelper {
  return new MemoryCredentialsHelper(engine.store, engine.credentialType);
}

let counter = 0;

export function makeNode(
  type: string,
  parameters: INodeParameters,
  name = 'Observation',
  typeVersion = 1,
): INode {
  counter += 1;
  return {
    id: `node-${counter}`,
    name,
    type,
    typeVersion,
    position: [0, 0],
    parameters,
    credentials: { [credentialType]: { id: 'cred-1', name: 'Observation account' } },
  };
}

function makeWorkflow(engine: Engine, node: INode, staticData?: IDataObject, next?: INode): Workflow {
  return new Workflow({
    id: 'wf-1',
    name: 'test workflow',
    nodes: next ? [node, next] : [node],
    connections: next ? { [node.name]: { main: [[{ node: next.name, type: 'main', index: 0 }]] } } : {},
    active: false,
    nodeTypes: next ? withHttpRequest(engine.nodeTypes) : engine.nodeTypes,
    staticData,
  });
}

/** The type of `httpRequestStandIn`: n8n's HTTP Request node's own name. */
export const httpRequestType = 'n8n-nodes-base.httpRequest';

/**
 * n8n's HTTP Request node as an alert workflow uses it after the trigger: it POSTs each item's
 * JSON to its URL through n8n-core's own request helper, and an error status (a chat service's
 * 503) fails the node with a NodeApiError, which ends the execution in error, as the real node
 * does with its default settings (no Retry On Fail, On Error: Stop Workflow). The real one lives
 * in n8n-nodes-base, n8n's package of 400 nodes, which is not a dependency of ours (only the
 * e2e's own n8n install has it): what the trigger sees of an execution is its end status, which
 * n8n's engine sets the same whichever node fails.
 */
const httpRequestStandIn: INodeType = {
  description: {
    displayName: 'HTTP Request',
    name: 'httpRequest',
    group: ['output'],
    version: 1,
    description: 'stand-in of n8n-nodes-base.httpRequest: POSTs each item as JSON',
    defaults: { name: 'HTTP Request' },
    inputs: ['main' as never],
    outputs: ['main' as never],
    properties: [{ displayName: 'URL', name: 'url', type: 'string', default: '' }],
  },
  async execute(this: IExecuteFunctions) {
    const items = this.getInputData();
    const answers: INodeExecutionData[] = [];
    for (const [index, item] of items.entries()) {
      const url = this.getNodeParameter('url', index) as string;
      try {
        const body: unknown = await this.helpers.httpRequest({
          method: 'POST',
          url,
          body: item.json,
          json: true,
        });
        answers.push({ json: { body } as IDataObject, pairedItem: { item: index } });
      } catch (error) {
        throw new NodeApiError(this.getNode(), error as JsonObject, { itemIndex: index });
      }
    }
    return [answers];
  },
};

function withHttpRequest(nodeTypes: INodeTypes): INodeTypes {
  return {
    getByName: (type) => (type === httpRequestType ? httpRequestStandIn : nodeTypes.getByName(type)),
    getByNameAndVersion: (type, version) =>
      type === httpRequestType ? httpRequestStandIn : nodeTypes.getByNameAndVersion(type, version),
    getKnownTypes: () => ({}),
  };
}

function additionalData(engine: Engine, mode: WorkflowExecuteMode, hooks?: ExecutionLifecycleHooks) {
  return {
    credentialsHelper: credentialsHelper(engine),
    hooks,
    executeWorkflow: async () => {
      throw new Error('sub-workflows are not used by these nodes');
    },
    restApiUrl: 'http://localhost:5678/rest',
    instanceBaseUrl: 'http://localhost:5678/',
    webhookBaseUrl: 'http://localhost:5678/webhook',
    webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
    webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
    formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
    currentNodeParameters: undefined,
    executionTimeoutTimestamp: undefined,
    userId: 'user-1',
    variables: {},
    setExecutionStatus: () => undefined,
    sendDataToUI: () => undefined,
    logAiEvent: () => undefined,
    getRunExecutionData: async () => undefined,
    startRunnerTask: async () => {
      throw new Error('task runners are not used by these nodes');
    },
    mode,
  } as unknown as IWorkflowExecuteAdditionalData;
}

export interface NodeRun {
  run: IRun;
  /** Items of the node's first output ([] when it failed). */
  items: INodeExecutionData[];
  /** The node's error, when it failed. */
  error: (Error & { description?: string | null; httpCode?: string | null }) | undefined;
}

/**
 * Executes one node as the start of a workflow through WorkflowExecute (the engine's manual
 * run path), with `input` as the items arriving at it.
 */
export async function runNode(
  engine: Engine,
  node: INode,
  input: INodeExecutionData[] = [{ json: {} }],
  mode: WorkflowExecuteMode = 'manual',
): Promise<NodeRun> {
  const run = await execute(engine, makeWorkflow(engine, node), node, input, mode, 'exec-1');
  const nodeRun = run.data.resultData.runData[node.name]?.[0];
  const error = (nodeRun?.error ?? run.data.resultData.error) as NodeRun['error'];
  return { run, items: nodeRun?.data?.main?.[0] ?? [], error };
}

/** A workflow as n8n exports it (and as the package's examples ship). */
export interface WorkflowFile {
  id?: string;
  name: string;
  nodes: INode[];
  connections: IConnections;
}

/**
 * n8n's Manual Trigger, for running a shipped example whole: n8n-nodes-base (where the real one
 * lives) is n8n's own package of 400 nodes and not a dependency of ours. In a manual run the
 * trigger only hands its one empty item to the next node, which is all this does.
 */
const manualTriggerStandIn: INodeType = {
  description: {
    displayName: 'Manual Trigger',
    name: 'manualTrigger',
    group: ['trigger'],
    version: 1,
    description: 'stand-in of n8n-nodes-base.manualTrigger',
    defaults: { name: 'Start' },
    inputs: [],
    outputs: ['main' as never],
    properties: [],
  },
  async execute() {
    return [[{ json: {} }]];
  },
};

/**
 * Runs a whole workflow file through WorkflowExecute, from its node `start` (a Manual Trigger) on,
 * as "Execute workflow" in the editor does; nodes of other n8n packages are not available.
 */
export async function runWorkflow(engine: Engine, file: WorkflowFile, start: string): Promise<IRun> {
  const nodeTypes: INodeTypes = {
    getByName: (type) =>
      type === 'n8n-nodes-base.manualTrigger' ? manualTriggerStandIn : engine.nodeTypes.getByName(type),
    getByNameAndVersion: (type, version) =>
      type === 'n8n-nodes-base.manualTrigger'
        ? manualTriggerStandIn
        : engine.nodeTypes.getByNameAndVersion(type, version),
    getKnownTypes: () => ({}),
  };
  const workflow = new Workflow({
    id: file.id ?? 'wf-file',
    name: file.name,
    nodes: file.nodes,
    connections: file.connections,
    active: false,
    nodeTypes,
  });
  const node = workflow.getNode(start);
  if (!node) throw new Error(`the workflow has no node "${start}"`);
  return execute(engine, workflow, node, [{ json: {} }], 'manual', 'exec-file');
}

/**
 * One execution through WorkflowExecute starting at `node` with `input` as its data; resolves
 * with the run once the engine's `workflowExecuteAfter` hook says it ended. This is what n8n
 * runs for an action node, and (mode `trigger`) for every emit of a trigger: the trigger node's
 * emitted items become its output and the execution goes on from there.
 */
async function execute(
  engine: Engine,
  workflow: Workflow,
  node: INode,
  input: INodeExecutionData[],
  mode: WorkflowExecuteMode,
  executionId: string,
): Promise<IRun> {
  const hooks = new ExecutionLifecycleHooks(mode, executionId, {
    id: 'wf-1',
    name: 'test workflow',
    nodes: [node],
    connections: {},
    active: false,
    activeVersionId: null,
    isArchived: false,
    createdAt: new Date(),
    updatedAt: new Date(),
  } as never);
  const done = new Promise<IRun>((resolve) =>
    hooks.addHandler('workflowExecuteAfter', (run) => resolve(run)),
  );
  const stack: IExecuteData[] = [{ node, data: { main: [input] }, source: null }];
  const runData: IRunExecutionData = {
    version: 1,
    startData: {},
    resultData: { runData: {} },
    executionData: {
      contextData: {},
      nodeExecutionStack: stack,
      metadata: {},
      waitingExecution: {},
      waitingExecutionSource: {},
    },
  } as unknown as IRunExecutionData;
  const engineRun = new WorkflowExecute(additionalData(engine, mode, hooks), mode, runData);
  await engineRun.processRunExecutionData(workflow);
  return done;
}

export interface ActiveTrigger {
  response: ITriggerResponse | undefined;
  emitted: INodeExecutionData[][][];
  /** The deduplication key passed with each emit (n8n refuses a second execution with one). */
  keys: Array<string | undefined>;
  errors: Error[];
  staticData: IDataObject;
  /** Executions emitted whose end n8n has not reported to the trigger yet. */
  readonly unfinished: number;
  /** The emits n8n ran (not refused by `deduplication`): their items, in emit order. */
  ran: INodeExecutionData[][][];
  /** The runs of those executions, in the order they ended (`status` says how). */
  runs: IRun[];
  /** The static data as n8n's main saved it at the last emit (it saves at each emit): with `savedAtEmit`. */
  readonly savedAtLastEmit: IDataObject;
  /** With `holdExecutions`: ends the `count` oldest held executions (their done promises settle). */
  release(count?: number): Promise<void>;
  /** Resolves with the first `count` emitted items. */
  waitForItems(count: number, timeoutMs?: number): Promise<INodeExecutionData[]>;
  /** Resolves with every emitted item once `check` holds for them. */
  waitForItemsWhere(
    check: (items: INodeExecutionData[]) => boolean,
    timeoutMs?: number,
  ): Promise<INodeExecutionData[]>;
  waitForError(timeoutMs?: number): Promise<Error>;
  close(): Promise<void>;
}

export interface ActivationOptions {
  /** Why n8n activates it (getActivationMode()): `activate` by the user, `init` at n8n's start, … */
  activation?: WorkflowActivateMode;
  /** Executions run, but their end is reported to the trigger only when the test releases them. */
  holdExecutions?: boolean;
  /**
   * n8n's deduplication keys (its database's unique index), shared across activations as across
   * n8n's restarts: an emit under a key already there starts no execution, and its done promise
   * resolves with no run, as in n8n 2.41 (TriggerExecutionContextFactory). n8n's persistence
   * lives in its cli package, outside n8n-core: this set stands in for that one index.
   */
  deduplication?: Set<string>;
  /**
   * n8n could not start the execution of this emit (its database timed out): emit's done promise
   * rejects with this error and nothing runs. n8n's cli (WorkflowRunner) does this, outside
   * n8n-core, so the test says which emit meets it.
   */
  failStart?: (key: string | undefined) => Error | undefined;
  /**
   * A node after the trigger (its main output connected to it), run by each execution: with
   * `httpRequestType`, the stand-in of n8n's HTTP Request node (see `httpRequestStandIn`).
   */
  next?: INode;
  /**
   * Keep a copy of the static data as n8n's main saved it at each emit (`savedAtLastEmit`): only
   * where a test reads it, since copying it at every emit of a long stream cost the storm of
   * trigger-never-lose over half its CPU (profiled).
   */
  savedAtEmit?: boolean;
}

/**
 * Activates a trigger node the way n8n's ActiveWorkflowManager does: TriggersAndPollers runs
 * the node's trigger() with a TriggerContext whose emit starts a real execution of the emitted
 * items (WorkflowExecute, mode `trigger`) and settles emit's done promise with its run when the
 * execution ends, as n8n does, never at the emit itself.
 */
export async function activateTrigger(
  engine: Engine,
  node: INode,
  staticData: IDataObject = {},
  mode: 'trigger' | 'manual' = 'trigger',
  options: ActivationOptions = {},
): Promise<ActiveTrigger> {
  const workflow = makeWorkflow(engine, node, staticData, options.next);
  const emitted: INodeExecutionData[][][] = [];
  const runs: IRun[] = [];
  const keys: Array<string | undefined> = [];
  const ran: INodeExecutionData[][][] = [];
  let savedAtLastEmit: string | undefined = options.savedAtEmit ? JSON.stringify(staticData) : undefined;
  const errors: Error[] = [];
  const held: Array<() => void> = [];
  let unfinished = 0;
  let executions = 0;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  const data = additionalData(
    engine,
    mode,
    mode === 'manual' ? new ExecutionLifecycleHooks('manual', 'exec-manual', {} as never) : undefined,
  );
  const runEmitted = (items: INodeExecutionData[][], done: Parameters<ITriggerFunctions['emit']>[2]) => {
    unfinished++;
    executions++;
    execute(engine, workflow, node, items[0] ?? [], 'trigger', `exec-${executions}`).then(
      (run) => {
        const end = () => {
          unfinished--;
          runs.push(run);
          done?.resolve(run);
          notify();
        };
        if (options.holdExecutions) held.push(end);
        else end();
      },
      (error: unknown) => {
        unfinished--;
        done?.reject(error as Error);
        notify();
      },
    );
  };
  const response = await new TriggersAndPollers().runTriggerFunction(
    workflow,
    node,
    (wf, triggerNode, ad, triggerMode, activation) =>
      new TriggerContext(
        wf,
        triggerNode,
        ad,
        triggerMode,
        activation,
        (items, _response, done, key) => {
          emitted.push(items);
          keys.push(key);
          if (options.savedAtEmit) savedAtLastEmit = JSON.stringify(workflow.staticData);
          notify();
          const failure = options.failStart?.(key);
          if (failure !== undefined) done?.reject(failure);
          else if (mode === 'manual') done?.resolve({} as never);
          else if (key !== undefined && options.deduplication?.has(key)) done?.resolve(undefined as never);
          else {
            if (key !== undefined) options.deduplication?.add(key);
            ran.push(items);
            runEmitted(items, done);
          }
        },
        (error) => {
          errors.push(error);
          notify();
        },
      ),
    data,
    mode,
    mode === 'manual' ? 'manual' : (options.activation ?? 'activate'),
  );
  const until = <T,>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const waiter = () => {
        const value = check();
        if (value === undefined) return;
        waiters.delete(waiter);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what} (emitted: ${emitted.length} batches, errors: ${errors.map((e) => e.message).join('; ')})`,
          ),
        );
      }, timeoutMs);
      waiters.add(waiter);
      waiter();
    });
  return {
    response,
    emitted,
    keys,
    errors,
    staticData: workflow.staticData,
    get unfinished() {
      return unfinished;
    },
    ran,
    runs,
    get savedAtLastEmit() {
      if (savedAtLastEmit === undefined)
        throw new Error('activateTrigger: pass { savedAtEmit: true } to read savedAtLastEmit');
      return JSON.parse(savedAtLastEmit) as IDataObject;
    },
    release: async (count = held.length) => {
      for (const end of held.splice(0, count)) end();
      await new Promise((resolve) => setImmediate(resolve));
    },
    waitForItems: (count, timeoutMs = 10_000) =>
      until(
        () => {
          const items = emitted.flatMap((batch) => batch[0] ?? []);
          return items.length >= count ? items.slice(0, count) : undefined;
        },
        timeoutMs,
        `${count} emitted items`,
      ),
    waitForItemsWhere: (check, timeoutMs = 10_000) =>
      until(
        () => {
          const items = emitted.flatMap((batch) => batch[0] ?? []);
          return check(items) ? items : undefined;
        },
        timeoutMs,
        'emitted items to match',
      ),
    waitForError: (timeoutMs = 10_000) => until(() => errors[0], timeoutMs, 'an emitted error'),
    close: async () => {
      await response?.closeFunction?.();
    },
  };
}

/** Runs a node's listSearch method in a real LoadOptionsContext (what the editor calls). */
export async function listSearch(
  engine: Engine,
  node: INode,
  method: string,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  const workflow = makeWorkflow(engine, node);
  const context = new LoadOptionsContext(workflow, node, additionalData(engine, 'manual'), 'parameters');
  const nodeType = engine.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
  const search = nodeType.methods?.listSearch?.[method];
  if (!search) throw new Error(`no listSearch method ${method}`);
  return search.call(context, filter, paginationToken);
}

/** Runs a node's loadOptions method in a real LoadOptionsContext. */
export async function loadOptions(
  engine: Engine,
  node: INode,
  method: string,
): Promise<INodePropertyOptions[]> {
  const workflow = makeWorkflow(engine, node);
  const context = new LoadOptionsContext(workflow, node, additionalData(engine, 'manual'), 'parameters');
  const nodeType = engine.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
  const load = nodeType.methods?.loadOptions?.[method];
  if (!load) throw new Error(`no loadOptions method ${method}`);
  return load.call(context);
}

/**
 * Runs the credential's `test` request as n8n's CredentialsTester.runRequestTest does (n8n 2.41,
 * dist/services/credentials-tester.service.js): a stand-in node whose only property routes the
 * test request, run by RoutingNode through httpRequestWithAuthentication (so preAuthentication
 * and authenticate apply); failures are mapped to a message the same way (the test's rules by
 * status code, then the network code, then the error's message).
 */
export async function testCredential(
  engine: Engine,
  data: ICredentialDataDecryptedObject,
): Promise<INodeCredentialTestResult> {
  const test = engine.credentialType.test;
  if (!test) throw new Error('the credential declares no test request');
  const helper = credentialsHelper(engine);
  const credentials = {
    id: 'cred-1',
    name: 'Observation account',
    type: credentialType,
    data: helper.applyDefaults(data),
  };
  const testNodeType: INodeType = {
    description: {
      displayName: 'Temp',
      name: 'n8n-nodes-base.noOp',
      group: ['transform'],
      version: 1,
      description: '',
      defaults: {},
      inputs: [],
      outputs: [],
      credentials: [{ name: credentialType, required: true }],
      properties: [
        {
          displayName: 'Temp',
          name: 'temp',
          type: 'string',
          routing: { request: test.request },
          default: '',
        },
      ],
    },
  };
  const node: INode = {
    id: 'temp',
    name: 'Temp-Node',
    type: 'n8n-nodes-base.noOp',
    typeVersion: 1,
    position: [0, 0],
    parameters: {},
    credentials: { [credentialType]: { id: credentials.id, name: credentials.name } },
  };
  const nodeTypes: INodeTypes = {
    getByName: () => testNodeType,
    getByNameAndVersion: () => testNodeType,
    getKnownTypes: () => ({}),
  };
  const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
  const context = new ExecuteContext(
    workflow,
    node,
    additionalData(engine, 'internal'),
    'internal',
    createEmptyRunExecutionData(),
    0,
    [],
    { main: [[{ json: {} }]] },
    { node, data: {}, source: null },
    [],
  );
  try {
    await new RoutingNode(context, testNodeType, credentials).runNode();
  } catch (caught) {
    const error = caught as Error & {
      cause?: { response?: { status: number; statusText?: string }; code?: string };
    };
    const response = error.cause?.response;
    if (response) {
      for (const rule of test.rules ?? []) {
        if (rule.type === 'responseCode' && rule.properties.value === response.status) {
          return { status: 'Error', message: rule.properties.message };
        }
      }
      if (response.status < 199 || response.status > 299) {
        return {
          status: 'Error',
          message: response.statusText || `Received HTTP status code: ${response.status}`,
        };
      }
    } else if (error.cause?.code) {
      return { status: 'Error', message: error.cause.code };
    }
    return { status: 'Error', message: error.message.toString() };
  }
  return { status: 'OK', message: 'Connection successful' };
}

export interface PollRun {
  /** What poll() returned: the items of one execution, or null for nothing new. */
  items: INodeExecutionData[] | null;
  /** The workflow's static data afterwards, as n8n would save it (through JSON). */
  staticData: IDataObject;
}

/**
 * One production poll of a polling trigger, as n8n's PollTriggerExecutor runs it (n8n polls once
 * when it activates the workflow, then at the Poll Times): TriggersAndPollers.runPollFunction with
 * a PollContext in trigger mode over the workflow's static data. `staticData` is what n8n loaded
 * from its database (pass the previous run's to play a restart).
 */
export async function pollTrigger(
  engine: Engine,
  node: INode,
  staticData: IDataObject = {},
): Promise<PollRun> {
  const workflow = makeWorkflow(engine, node, JSON.parse(JSON.stringify(staticData)) as IDataObject);
  const context = new PollContext(workflow, node, additionalData(engine, 'trigger'), 'trigger', 'activate');
  const result = await new TriggersAndPollers().runPollFunction(workflow, node, context);
  return {
    items: result === null ? null : (result[0] ?? []),
    staticData: JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject,
  };
}
