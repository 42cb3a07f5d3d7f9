/**
 * P9's host: the built n8n package (dist/, loaded by n8n-core's PackageDirectoryLoader as an n8n
 * instance loads a community package) with its Observation Trigger activated the way n8n's
 * ActiveWorkflowManager does it: TriggersAndPollers runs the node's trigger() in a real
 * TriggerContext whose emit() is n8n's hand-off to start an execution. Here emit() counts the
 * items (the workflow run n8n would start per event or batch is n8n's own cost, not the node's). The same
 * process can host the raw `ws` baseline instead. Driven over IPC like the simulator.
 */
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type {
  ICredentialDataDecryptedObject,
  INode,
  INodeExecutionData,
  INodeType,
  INodeTypes,
  ITriggerResponse,
  IVersionedNodeType,
  IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import type { LocalTally } from '../lib/burst.ts';
import { now } from '../lib/clock.ts';
import { serveIpc } from '../lib/ipc-child.ts';
import { RawClient } from '../lib/raw-client.ts';
import { answerTally } from '../lib/remote-tally.ts';
import type { SimulatorAddresses } from '../lib/simulator-process.ts';

const require = createRequire(import.meta.url);
// n8n loads its packages with require(); their ESM builds do not run under plain Node.
const { PackageDirectoryLoader, TriggerContext, TriggersAndPollers } =
  require('n8n-core') as typeof import('n8n-core');
const { ICredentialsHelper, NodeHelpers, Workflow } =
  require('n8n-workflow') as typeof import('n8n-workflow');
const packageDir = realpathSync(
  dirname(require.resolve('@observation-service/n8n-nodes-observation/package.json')),
);
const triggerType = '@observation-service/n8n-nodes-observation.observationTrigger';

const loader = new PackageDirectoryLoader(packageDir);
await loader.loadAll();

const nodeTypes: INodeTypes = {
  getByName(nodeType: string): INodeType | IVersionedNodeType {
    const loaded = loader.nodeTypes[nodeType] ?? loader.nodeTypes[nodeType.split('.').pop() ?? ''];
    if (!loaded) throw new Error(`node type ${nodeType} is not in the package`);
    return loaded.type;
  },
  getByNameAndVersion(nodeType: string, version?: number): INodeType {
    return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
  },
  getKnownTypes: () => ({}),
};

/** The credential as a user fills it in; n8n would decrypt it from its database. */
class MemoryCredentials extends ICredentialsHelper {
  readonly #data: ICredentialDataDecryptedObject;
  constructor(data: ICredentialDataDecryptedObject) {
    super();
    this.#data = data;
  }
  getParentTypes(): string[] {
    return [];
  }
  async authenticate(_c: ICredentialDataDecryptedObject, _t: string, request: never): Promise<never> {
    return request;
  }
  async preAuthentication(): Promise<undefined> {
    return undefined;
  }
  async runPreAuthentication(): Promise<undefined> {
    return undefined;
  }
  async getCredentials(): Promise<never> {
    throw new Error('not used: getDecrypted serves the credential');
  }
  async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
    return { ...this.#data };
  }
  async updateCredentials(): Promise<void> {}
  async updateCredentialsOauthTokenData(): Promise<void> {}
  getCredentialsProperties() {
    return [];
  }
  isCredentialUsableByNode(): boolean {
    return true;
  }
}

const tally: LocalTally = { received: 0, lastAt: 0, recordTimes: false, ids: [], times: [] };
let active: { close(): Promise<void> } | undefined;

/** emit()'s done promise (n8n-workflow does not export its type). */
type DonePromise = { resolve(run: never): void } | undefined;

function count(items: INodeExecutionData[][], _response?: unknown, done?: DonePromise): void {
  // n8n settles it once the execution ends; the execution n8n would start is not measured here,
  // so it ends at once. Unsettled, the trigger would wait after 100 unfinished executions.
  done?.resolve({} as never);
  for (const item of items[0] ?? []) {
    tally.received++;
    tally.lastAt = now();
    if (tally.recordTimes) {
      tally.ids.push(item.json.id as number);
      tally.times.push(tally.lastAt);
    }
  }
}

async function activateTrigger(sim: SimulatorAddresses, batchSize: number): Promise<void> {
  const node: INode = {
    id: 'trigger-1',
    name: 'Observation Trigger',
    type: triggerType,
    typeVersion: 1,
    position: [0, 0],
    // Batch 1 is the default (no option set, as a user leaves it); a short wait keeps a partial
    // batch at the end of the warm-up from spilling into the measured burst.
    parameters: batchSize > 1 ? { tasks: 'all', options: { batchSize, batchWaitMs: 20 } } : { tasks: 'all' },
    credentials: { observationApi: { id: 'cred-1', name: 'Observation account' } },
  };
  const workflow = new Workflow({
    id: 'bench',
    name: 'bench',
    nodes: [node],
    connections: {},
    active: true,
    nodeTypes,
    staticData: {},
  });
  const additionalData = {
    credentialsHelper: new MemoryCredentials({
      url: sim.siteUrl,
      wsUrl: '',
      serviceId: sim.serviceId,
      authentication: 'accessToken',
      accessToken: sim.token,
      form: 'auto',
      trustedMediaHosts: '',
      allowSelfSigned: false,
    }),
    restApiUrl: 'http://localhost:5678/rest',
    instanceBaseUrl: 'http://localhost:5678/',
    webhookBaseUrl: 'http://localhost:5678/webhook',
    webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
    webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
    formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
    variables: {},
    userId: 'user-1',
    setExecutionStatus: () => undefined,
    sendDataToUI: () => undefined,
    logAiEvent: () => undefined,
  } as unknown as IWorkflowExecuteAdditionalData;
  const errors: Error[] = [];
  const response: ITriggerResponse | undefined = await new TriggersAndPollers().runTriggerFunction(
    workflow,
    node,
    (wf, triggerNode, data, mode, activation) =>
      new TriggerContext(wf, triggerNode, data, mode, activation, count, (error) => errors.push(error)),
    additionalData,
    'trigger',
    'activate',
  );
  active = {
    close: async () => {
      await response?.closeFunction?.();
      if (errors.length > 0)
        throw new Error(`the trigger reported: ${errors.map((e) => e.message).join('; ')}`);
    },
  };
}

async function activateRaw(sim: SimulatorAddresses): Promise<void> {
  const client = await RawClient.connect(
    `${sim.wsUrl}/events/realtime/${sim.serviceId}/0?token=${encodeURIComponent(sim.token)}`,
    tally,
  );
  active = { close: () => client.close() };
}

async function perform(action: string, args: unknown[]): Promise<unknown> {
  const answered = answerTally(tally, action, args);
  if (answered) return answered;
  await active?.close();
  active = undefined;
  switch (action) {
    case 'activate': {
      const [variant, sim, batchSize = 1] = args as ['trigger' | 'raw', SimulatorAddresses, number?];
      return variant === 'trigger' ? activateTrigger(sim, batchSize) : activateRaw(sim);
    }
    case 'deactivate':
      return undefined;
    default:
      throw new Error(`no action ${action}`);
  }
}

serveIpc({}, perform, () => {
  (active?.close() ?? Promise.resolve()).finally(() => process.exit(0));
});
