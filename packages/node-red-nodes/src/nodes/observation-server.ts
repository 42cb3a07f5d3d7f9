import type { ServerConfig, ServerCredentials } from '../lib/client-options.js';
import type { NetworkConfig } from '../lib/network-options.js';
import type { Node, NodeDefinition, NodeRedApi } from '../lib/node-red-api.js';
import { networkOptions, registerAdminRoutes, SERVER_NODE_TYPE, setUpServerNode } from '../lib/runtime.js';

/**
 * Without a service id the client speaks the basic form (no location or camera, times in UTC),
 * which a user who only forgot the field would not notice; one who chose Form "basic" knows.
 */
function usesBasicFormUnasked(config: ServerConfig): boolean {
  return String(config.serviceId ?? '').trim() === '' && config.form !== 'basic';
}

/** Node-RED calls this once when it loads the node set. */
function observationServer(RED: NodeRedApi): void {
  function ObservationServerNode(
    this: Node<ServerCredentials>,
    definition: NodeDefinition & ServerConfig & NetworkConfig,
  ) {
    RED.nodes.createNode(this, definition);
    setUpServerNode(
      this,
      definition,
      () => networkOptions(definition, (id) => RED.nodes.getNode(id)),
      (key, substitutions) => RED._(key, substitutions),
    );
    if (usesBasicFormUnasked(definition)) {
      // Once per deploy, on the next turn (Catch and Status nodes may not exist yet).
      const timer = setImmediate(() => this.warn(RED._('observation-server.warnings.basicForm')));
      this.on('close', (_removed, done) => {
        clearImmediate(timer);
        done();
      });
    }
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
