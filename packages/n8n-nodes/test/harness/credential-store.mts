/**
 * n8n's credential store, in memory: what the `n8n` package's CredentialsHelper (not part of
 * n8n-core, so not loadable here) does for a credential type, step for step as in n8n 2.41's
 * dist/credentials-helper.js: getDecrypted fills defaults and resolves `$self` expressions,
 * authenticate applies a generic `authenticate`, preAuthentication runs the type's own when the
 * expirable field is empty, the service refused it or the credential test runs, and saves the
 * answer, updateCredentials
 * replaces what is stored. One `CredentialStore` shared by two engines is one credential seen by
 * two n8n processes. The e2e (e2e/n8n) runs the real thing.
 */
import {
  type ICredentialDataDecryptedObject,
  ICredentialsHelper,
  type ICredentialType,
  type IDataObject,
  type IHttpRequestHelper,
  type IHttpRequestOptions,
  type INode,
  type INodeCredentialsDetails,
  type INodeType,
  type INodeTypes,
  isExpression,
  NodeHelpers,
  Workflow,
} from 'n8n-workflow';

/** What is "in the database": the credential's data, as saved. */
export interface CredentialStore {
  data: ICredentialDataDecryptedObject;
  /** How often preAuthentication's answer was saved. */
  saves: number;
}

export function credentialStore(data: ICredentialDataDecryptedObject): CredentialStore {
  return { data: { ...data }, saves: 0 };
}

// The stand-in workflow n8n resolves credential expressions in (its mockNode and mock node types).
const mockNode: INode = {
  id: 'mock',
  name: '',
  typeVersion: 1,
  type: 'mock',
  position: [0, 0],
  parameters: {},
};
const mockType: INodeType = {
  description: {
    displayName: 'Mock',
    name: 'mock',
    group: [],
    version: 1,
    description: '',
    defaults: {},
    inputs: [],
    outputs: [],
    properties: [],
  },
};
const mockNodeTypes: INodeTypes = {
  getByName: () => mockType,
  getByNameAndVersion: () => mockType,
  getKnownTypes: () => ({}),
};

export class MemoryCredentialsHelper extends ICredentialsHelper {
  constructor(
    private readonly store: CredentialStore,
    private readonly type: ICredentialType,
  ) {
    super();
  }

  private expressionWorkflow(): Workflow {
    return new Workflow({ nodes: [mockNode], connections: {}, active: false, nodeTypes: mockNodeTypes });
  }

  getParentTypes(): string[] {
    return [];
  }

  async authenticate(
    credentials: ICredentialDataDecryptedObject,
    _typeName: string,
    requestOptions: IHttpRequestOptions,
    workflow: Workflow,
    node: INode,
  ): Promise<IHttpRequestOptions> {
    const { authenticate } = this.type;
    if (typeof authenticate === 'function') return authenticate(credentials, requestOptions);
    if (authenticate?.type !== 'generic') return requestOptions;
    const resolve = (value: unknown) =>
      isExpression(value)
        ? String(
            workflow.expression.getSimpleParameterValue(
              node,
              value,
              'internal',
              { $credentials: credentials } as never,
              undefined,
              '',
            ) || '',
          )
        : value;
    const options = requestOptions as unknown as Record<string, IDataObject>;
    for (const [outer, entries] of Object.entries(authenticate.properties)) {
      options[outer] ??= {};
      for (const [key, value] of Object.entries(entries as IDataObject)) {
        (options[outer] as IDataObject)[String(resolve(key))] = resolve(value) as string;
      }
    }
    return requestOptions;
  }

  async preAuthentication(
    helpers: IHttpRequestHelper,
    credentials: ICredentialDataDecryptedObject,
    _typeName: string,
    node: INode,
    credentialsExpired: boolean,
  ): Promise<ICredentialDataDecryptedObject | undefined> {
    const expirable = this.type.properties.find(
      (property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
    );
    if (expirable === undefined || typeof this.type.preAuthentication !== 'function') return undefined;
    // n8n's credential test (its stand-in noOp node with the one `temp` parameter) always runs it.
    const testing = node?.parameters?.temp === '' && node?.type === 'n8n-nodes-base.noOp';
    if (credentials[expirable.name] !== '' && !credentialsExpired && !testing) return undefined;
    const output = await this.type.preAuthentication.call(helpers, credentials);
    if (output[expirable.name] === undefined || !node.credentials) return undefined;
    const stored = { ...this.store.data };
    for (const [key, value] of Object.entries(output)) {
      if (key === expirable.name || !isExpression(stored[key])) stored[key] = value as never;
    }
    await this.updateCredentials({ id: null, name: '' }, this.type.name, stored);
    return Object.assign(credentials, output);
  }

  async runPreAuthentication(
    helpers: IHttpRequestHelper,
    credentials: ICredentialDataDecryptedObject,
  ): Promise<ICredentialDataDecryptedObject | undefined> {
    return (await this.type.preAuthentication?.call(helpers, credentials)) as
      | ICredentialDataDecryptedObject
      | undefined;
  }

  async getCredentials(): Promise<never> {
    throw new Error('not used: getDecrypted serves the credential');
  }

  /** As n8n: the stored data with the type's defaults, `$self` expressions resolved. */
  async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
    return this.applyDefaults(this.store.data);
  }

  applyDefaults(data: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
    const withDefaults = NodeHelpers.getNodeParameters(
      this.type.properties,
      data as never,
      true,
      false,
      null,
      null,
    );
    return this.expressionWorkflow().expression.getComplexParameterValue(
      mockNode,
      withDefaults as never,
      'internal',
      {},
      undefined,
      undefined,
      withDefaults as never,
    ) as ICredentialDataDecryptedObject;
  }

  async updateCredentials(
    _nodeCredentials: INodeCredentialsDetails,
    _type: string,
    data: ICredentialDataDecryptedObject,
  ): Promise<void> {
    this.store.data = { ...data };
    this.store.saves += 1;
  }

  async updateCredentialsOauthTokenData(): Promise<void> {}

  getCredentialsProperties() {
    return this.type.properties;
  }

  /** Our credential sets no restrictToSupportedNodes, so n8n allows it for any node. */
  isCredentialUsableByNode(): boolean {
    return true;
  }
}
