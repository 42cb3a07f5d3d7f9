import {
  type ClientOptions,
  createClient,
  type ObservationClient,
  type SubscribeOptions,
} from '@observation-service/core';
import { heartbeatMs, type ServerConfig, type ServerCredentials, toClientOptions } from './client-options.js';
import type { Node } from './node-red-api.js';
import {
  SharedSubscriptions,
  type SubscriptionLease,
  type SubscriptionUser,
  type TaskSelection,
} from './shared-subscriptions.js';

export const SERVER_NODE_TYPE = 'observation-server';

/** What the events, query and admin-route code use of a deployed `observation-server` node. */
export interface ServerNode extends Node<ServerCredentials> {
  readonly isObservationServer: true;
  /** The one core client of this config node, created on first use. Throws core's error for a bad config. */
  client(): ObservationClient;
  subscribe(selection: TaskSelection, user: SubscriptionUser, options: SubscribeOptions): SubscriptionLease;
  /** Open core subscriptions (for tests and diagnostics). */
  readonly openSubscriptions: number;
}

export function isServerNode(value: unknown): value is ServerNode {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { isObservationServer?: unknown }).isObservationServer === true
  );
}

/**
 * Turns a freshly created Node-RED node into the config node: one lazily created core client,
 * shared subscriptions, and a close handler that leaves no socket, timer or listener behind.
 */
export function setUpServerNode(
  node: Node<ServerCredentials>,
  config: ServerConfig,
  network: () => Pick<ClientOptions, 'tls' | 'proxy'> = () => ({}),
): ServerNode {
  let client: ObservationClient | undefined;
  let closed = false;
  const getClient = (): ObservationClient => {
    if (closed) throw new Error('observation-server node is closed');
    // TLS and proxy come from other config nodes, read when the client is first needed (by
    // then every config node of the flow has started).
    client ??= createClient({ ...toClientOptions(config, node.credentials), ...network() });
    return client;
  };
  const subscriptions = new SharedSubscriptions(getClient);
  const heartbeat = heartbeatMs(config);

  node.on('close', (_removed, done) => {
    closed = true;
    const finish = async () => {
      await subscriptions.closeAll();
      await client?.close();
      client = undefined;
    };
    finish().then(done, (error: unknown) => {
      node.warn(`closing failed: ${error instanceof Error ? error.message : String(error)}`);
      done();
    });
  });

  const extension = {
    isObservationServer: true as const,
    client: getClient,
    subscribe: (selection: TaskSelection, user: SubscriptionUser, options: SubscribeOptions) =>
      subscriptions.acquire(selection, user, heartbeat ? { heartbeatMs: heartbeat, ...options } : options),
  };
  Object.assign(node, extension);
  // A getter, not a copied value: the count changes as events nodes come and go.
  Object.defineProperty(node, 'openSubscriptions', { get: () => subscriptions.size, enumerable: false });
  return node as ServerNode;
}
