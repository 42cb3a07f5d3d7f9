/**
 * The small part of Dashboard 2's runtime API the gallery uses (see its third-party widget guide).
 * Node-RED's own API is typed once, in @observation-service/node-red-observation (its
 * node-red-api.ts); the import is type-only, so the gallery runs none of that package's code.
 */
import type { Node, NodeMessage } from '@observation-service/node-red-observation/src/lib/node-red-api.js';

/** Dashboard 2's hooks of one widget. */
export interface WidgetEvents {
  beforeSend(msg: NodeMessage): Promise<NodeMessage>;
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
