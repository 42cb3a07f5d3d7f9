import type { Node, NodeDefinition, NodeRedApi } from '../lib/node-red-api.js';
import type { QueryConfig } from '../lib/query-node.js';
import { setUpQueryNode } from '../lib/runtime.js';

/** Node-RED calls this once when it loads the node set. */
function observationQuery(RED: NodeRedApi): void {
  function ObservationQueryNode(this: Node, definition: NodeDefinition & QueryConfig) {
    RED.nodes.createNode(this, definition);
    setUpQueryNode(this, definition, RED, RED._);
  }
  RED.nodes.registerType('observation-query', ObservationQueryNode as never);
}

export = observationQuery;
