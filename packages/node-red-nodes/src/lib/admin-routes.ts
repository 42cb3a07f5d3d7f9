import type { ObservationClient } from '@observation-service/core';
import type { NodeRedApi, RequestHandler } from './node-red-api.js';
import { isServerNode, SERVER_NODE_TYPE } from './server-node.js';

/** Permission the editor's dropdown routes need (a user with `read` or `*` has it). */
export const READ_PERMISSION = `${SERVER_NODE_TYPE}.read`;

/** Dropdowns list at most this many entries; the ids field covers anything beyond. */
export const DROPDOWN_LIMIT = 1000;

async function take<T>(items: AsyncIterable<T>, max: number): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}

const lookups: Record<string, (client: ObservationClient) => Promise<unknown[]>> = {
  tasks: (client) => take(client.tasks.all(), DROPDOWN_LIMIT),
  locations: (client) => take(client.locations.all(), DROPDOWN_LIMIT),
  'event-types': (client) => client.events.listTypes(),
};

function errorBody(error: unknown): { error: string; code?: string } {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { error: message, code } : { error: message };
}

/**
 * Routes behind the editor's dropdowns. Registered once when Node-RED loads the module (not per
 * node instance, which would stack duplicates on every deploy). They only ever use the deployed
 * config node's own client and credentials: nothing sent by the browser is used to authenticate.
 */
export function registerAdminRoutes(RED: NodeRedApi): void {
  for (const [name, lookup] of Object.entries(lookups)) {
    const handler: RequestHandler = (req, res) => {
      const node = RED.nodes.getNode(req.params.id ?? '');
      if (!isServerNode(node)) {
        res.status(503).json({
          error: RED._('observation-server.errors.notDeployed'),
          code: 'not-deployed',
        });
        return;
      }
      Promise.resolve()
        .then(() => lookup(node.client()))
        .then(
          (items) => res.json(items),
          (error: unknown) => res.status(502).json(errorBody(error)),
        );
    };
    RED.httpAdmin.get(`/${SERVER_NODE_TYPE}/:id/${name}`, RED.auth.needsPermission(READ_PERMISSION), handler);
  }
}
