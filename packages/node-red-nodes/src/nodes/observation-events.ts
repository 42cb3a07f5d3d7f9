import type { EventsConfig } from '../lib/events-node.js';
import type { Node, NodeDefinition, NodeRedApi } from '../lib/node-red-api.js';
import { durablePositionStore, setUpEventsNode } from '../lib/runtime.js';

/** Node-RED calls this once when it loads the node set. */
function observationEvents(RED: NodeRedApi): void {
  function ObservationEventsNode(this: Node, definition: NodeDefinition & EventsConfig) {
    RED.nodes.createNode(this, definition);
    setUpEventsNode(
      this,
      definition,
      (id) => RED.nodes.getNode(id),
      RED._,
      durablePositionStore(this, RED),
      RED.hooks,
    );
  }
  RED.nodes.registerType('observation-events', ObservationEventsNode as never);
}

export = observationEvents;
