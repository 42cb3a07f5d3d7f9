import type { ServerConfig, ServerCredentials } from '../lib/client-options.js';
import type { NetworkConfig } from '../lib/network-options.js';
import type { Node, NodeDefinition, NodeRedApi } from '../lib/node-red-api.js';
import { networkOptions, registerAdminRoutes, SERVER_NODE_TYPE, setUpServerNode } from '../lib/runtime.js';

/** Node-RED calls this once when it loads the node set. */
function observationServer(RED: NodeRedApi): void {
  function ObservationServerNode(
    this: Node<ServerCredentials>,
    definition: NodeDefinition & ServerConfig & NetworkConfig,
  ) {
    RED.nodes.createNode(this, definition);
    setUpServerNode(this, definition, () => networkOptions(definition, (id) => RED.nodes.getNode(id)));
  }
  RED.nodes.registerType(SERVER_NODE_TYPE, ObservationServerNode as never, {
    credentials: {
      token: { type: 'password' },
      email: { type: 'text' },
      password: { type: 'password' },
    },
  });
  registerAdminRoutes(RED);
}

export = observationServer;
