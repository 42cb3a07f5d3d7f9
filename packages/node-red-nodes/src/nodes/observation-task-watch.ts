import type { Node, NodeDefinition, NodeRedApi } from '../lib/node-red-api.js';
import { durableTaskWatchStore, setUpTaskWatchNode } from '../lib/runtime.js';
import type { TaskWatchConfig } from '../lib/task-watch-node.js';

/** Node-RED calls this once when it loads the node set. */
function observationTaskWatch(RED: NodeRedApi): void {
  function ObservationTaskWatchNode(this: Node, definition: NodeDefinition & TaskWatchConfig) {
    RED.nodes.createNode(this, definition);
    setUpTaskWatchNode(
      this,
      definition,
      (id) => RED.nodes.getNode(id),
      RED._,
      durableTaskWatchStore(this, RED),
    );
  }
  RED.nodes.registerType('observation-task-watch', ObservationTaskWatchNode as never);
}

export = observationTaskWatch;
