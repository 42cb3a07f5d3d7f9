/**
 * The small part of Node-RED's runtime API these nodes use, typed here instead of pulling in
 * `@types/node-red` (which drags express and editor typings along and lags behind Node-RED 4/5).
 * Only what the nodes (and the dashboard gallery, `httpNode`) call is declared, so a mismatch with
 * a Node-RED version shows up in tests. The one home of these types: the gallery package imports
 * them from this file with `import type` (erased when it is built), so the file stays types only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type NodeStatusFill = 'red' | 'green' | 'yellow' | 'blue' | 'grey';
export type NodeStatusShape = 'ring' | 'dot';

export interface NodeStatus {
  fill?: NodeStatusFill;
  shape?: NodeStatusShape;
  text?: string;
}

/** A Node-RED message: an object with any properties; `_msgid` is set by the runtime. */
export interface NodeMessage {
  [key: string]: unknown;
  _msgid?: string;
  payload?: unknown;
  topic?: string;
}

export interface ContextStore {
  get(key: string, callback: (error: Error | undefined, value: unknown) => void): void;
  set(key: string, value: unknown, callback?: (error?: Error) => void): void;
}

export interface NodeContext extends ContextStore {
  flow: ContextStore;
  global: ContextStore;
}

export type SendFunction = (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void;
export type DoneFunction = (error?: Error) => void;

/** A node instance after `RED.nodes.createNode(this, config)`. */
export interface Node<TCredentials = Record<string, never>> {
  readonly id: string;
  readonly type: string;
  readonly name?: string;
  readonly z?: string;
  /** Inside a subflow instance: the id of the node in the subflow's definition. */
  readonly _alias?: string;
  credentials: Partial<TCredentials>;
  send: SendFunction;
  status(status: NodeStatus | Record<string, never>): void;
  log(message: string): void;
  warn(message: string): void;
  error(error: unknown, msg?: NodeMessage): void;
  /** Written only when Node-RED's log level is `debug` or finer. */
  debug(message: string): void;
  context(): NodeContext;
  on(event: 'input', listener: (msg: NodeMessage, send: SendFunction, done: DoneFunction) => void): void;
  on(event: 'close', listener: (removed: boolean, done: () => void) => void): void;
}

export interface NodeDefinition {
  id: string;
  type: string;
  name?: string;
  z?: string;
}

/** A request as Node-RED's express apps (`httpAdmin`, `httpNode`) hand it over. */
export type RouteRequest = IncomingMessage & {
  params: Record<string, string>;
  query: Record<string, unknown>;
};

export type RequestHandler = (
  req: RouteRequest,
  res: ServerResponse & {
    status(code: number): { json(body: unknown): void };
    json(body: unknown): void;
  },
  next: (error?: unknown) => void,
) => void;

export interface CredentialField {
  type: 'text' | 'password';
}

/** The settings.js values the nodes read (Node-RED exposes them read-only). */
export interface NodeRedSettings {
  /** Node-RED's user directory (flows, credentials, installed nodes). */
  readonly userDir?: string;
  /** Context stores; unset in a fresh settings.js (memory only). */
  readonly contextStorage?: unknown;
  /** Where `httpNode` serves (and Dashboard 2 lives); `false` turns the flows' HTTP endpoints off. */
  readonly httpNodeRoot?: string | false;
}

export interface NodeRedApi {
  settings: NodeRedSettings;
  nodes: {
    createNode(node: object, definition: NodeDefinition): void;
    getNode(id: string): unknown;
    /** Every node of the deployed flow configuration (during a deploy: the new one). */
    eachNode(callback: (node: { id: string; type: string }) => void): void;
    registerType(
      type: string,
      nodeConstructor: (this: never, definition: never) => void,
      options?: { credentials?: Record<string, CredentialField> },
    ): void;
  };
  util: {
    evaluateNodeProperty(
      value: unknown,
      type: string,
      node: object,
      msg: NodeMessage,
      callback: (error: Error | null, result: unknown) => void,
    ): void;
  };
  httpAdmin: {
    get(path: string, ...handlers: RequestHandler[]): void;
  };
  /** The app of the flows' own HTTP endpoints (under `httpNodeRoot`); absent when that is `false`. */
  httpNode?: {
    get(path: string, ...handlers: RequestHandler[]): void;
  };
  auth: {
    needsPermission(permission: string): RequestHandler;
  };
  /** The runtime's messaging hooks ("when the flow is done" counts deliveries and completions). */
  hooks: import('./flow-done.js').MessagingHooks;
  /** Message catalog lookup; the runtime prefixes the node set's namespace. */
  _(key: string, substitutions?: Record<string, string | number>): string;
  log: {
    warn(message: string): void;
  };
}
