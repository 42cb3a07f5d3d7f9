/**
 * The small part of Node-RED's and Dashboard 2's runtime API the gallery uses, typed here (as in
 * the Node-RED package) instead of pulling in `@types/node-red`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type NodeMessage = Record<string, unknown>;

export interface Node {
  readonly id: string;
  readonly type: string;
  status(status: { fill?: 'red' | 'green' | 'yellow' | 'grey'; shape?: 'ring' | 'dot'; text?: string }): void;
  warn(message: string): void;
  error(error: unknown, msg?: NodeMessage): void;
  on(event: 'close', listener: (removed: boolean, done: () => void) => void): void;
}

export interface NodeDefinition {
  id: string;
  type: string;
  name?: string;
  z?: string;
}

/** An express-like request as Node-RED's httpNode hands it over. */
export type RouteRequest = IncomingMessage & { params: Record<string, string> };
export type RouteHandler = (req: RouteRequest, res: ServerResponse) => void;

export interface NodeRedApi {
  nodes: {
    createNode(node: object, definition: NodeDefinition): void;
    registerType(type: string, nodeConstructor: unknown): void;
    getNode(id: string): unknown;
  };
  /** The app of the flows' HTTP endpoints (`httpNodeRoot`), where the dashboard lives too. */
  httpNode?: { get(path: string, handler: RouteHandler): void };
  settings: { httpNodeRoot?: string | false };
  /** Message catalog lookup (locales/); the runtime prefixes the node set's namespace. */
  _(key: string, substitutions?: Record<string, string | number>): string;
}

/** Translates a key of the gallery's message catalog. */
export type Translate = NodeRedApi['_'];

/** Dashboard 2's hooks of one widget (see its third-party widget guide). */
export interface WidgetEvents {
  beforeSend(msg: NodeMessage): Promise<NodeMessage | null>;
  onInput(msg: NodeMessage, send: unknown): Promise<void>;
}

export interface DashboardBase {
  stores: { data: { save(base: DashboardBase, node: Node, msg: NodeMessage): void } };
}

/** A Dashboard 2 `ui-group` config node. */
export interface DashboardGroup {
  register(node: Node, config: object, events: WidgetEvents): void;
  getBase(): DashboardBase;
}

export function isDashboardGroup(value: unknown): value is DashboardGroup {
  const group = value as Partial<DashboardGroup> | null | undefined;
  return typeof group?.register === 'function' && typeof group.getBase === 'function';
}
