import {
  type Annotator,
  type ClientOptions,
  createClient,
  type Logger,
  type ObservationClient,
  ObservationError,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionHandlers,
} from '@observation-service/core';
import { sharedAnnotator } from './annotator.js';
import { heartbeatMs, type ServerConfig, type ServerCredentials, toClientOptions } from './client-options.js';
import type { Translate } from './events-status.js';
import { withServerField } from './field-labels.js';
import type { Node } from './node-red-api.js';

/** Every task, or the listed task ids. */
export type TaskSelection = number[] | 'all';

export const SERVER_NODE_TYPE = 'observation-server';

/** What the events, query and admin-route code use of a deployed `observation-server` node. */
export interface ServerNode extends Node<ServerCredentials> {
  readonly isObservationServer: true;
  /** The one core client of this config node, created on first use. Throws core's error for a bad config. */
  client(): ObservationClient;
  /**
   * Draws annotated snapshots (and thumbnails, `maxWidth`) in the package's worker threads: for
   * nodes of other packages (the Dashboard 2 gallery) that reach core through this node.
   */
  annotate: Annotator;
  /**
   * A core subscription of its own for one events node (its own socket, catch-up, position and
   * backpressure), on the config node's one client: one login however many nodes subscribe.
   */
  subscribe(
    selection: TaskSelection,
    handlers: SubscriptionHandlers,
    options: SubscribeOptions,
  ): Subscription;
  /** Core subscriptions holding sockets now (for tests and diagnostics). */
  readonly openSubscriptions: number;
}

/** How the user knows the config node: its name, or its label in the editor without one. */
function serverName(node: { id?: string }, config: ServerConfig): string {
  const name = (config as { name?: unknown }).name;
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : (node.id ?? 'observation-server');
}

export function isServerNode(value: unknown): value is ServerNode {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { isObservationServer?: unknown }).isObservationServer === true
  );
}

/**
 * Core's log lines under this config node, each at core's own level (core decides what is a
 * warning: Node-RED shows warnings and errors in the debug sidebar too, info and debug lines only
 * in its log). Core never puts a secret in them.
 */
function nodeLogger(node: Node<ServerCredentials>): Logger {
  const line = (message: string, data?: Record<string, unknown>) =>
    data === undefined || Object.keys(data).length === 0 ? message : `${message} ${JSON.stringify(data)}`;
  return {
    debug: (message, data) => node.debug(line(message, data)),
    info: (message, data) => node.log(line(message, data)),
    warn: (message, data) => node.warn(line(message, data)),
    error: (message, data) => node.error(line(message, data)),
  };
}

/**
 * Turns a freshly created Node-RED node into the config node: one lazily created core client, the
 * subscriptions of its events nodes, and a close handler that leaves no socket, timer or listener
 * behind.
 *
 * Unlike core MQTT's broker node, events nodes do not share a socket: each has its own position,
 * so each must catch up from where it stopped, and a slow flow must only hold back its own node.
 */
export function setUpServerNode(
  node: Node<ServerCredentials>,
  config: ServerConfig,
  network: () => Pick<ClientOptions, 'tls' | 'proxy'> = () => ({}),
  t?: Translate,
): ServerNode {
  let client: ObservationClient | undefined;
  let closed = false;
  const getClient = (): ObservationClient => {
    // As core says of a closed client: a node asking now is being stopped with this one.
    if (closed) throw new ObservationError('CLIENT_CLOSED', 'observation-server node is closed');
    // TLS and proxy come from other config nodes, read when the client is first needed (by
    // then every config node of the flow has started).
    try {
      client ??= createClient({
        ...toClientOptions(config, node.credentials),
        ...network(),
        logger: nodeLogger(node),
      });
    } catch (error) {
      // A refused setting, named by its field in this config node (every node using it says so).
      throw t ? withServerField(error, serverName(node, config), t) : error;
    }
    return client;
  };
  const heartbeat = heartbeatMs(config);

  node.on('close', (_removed, done) => {
    closed = true;
    // Closing the client closes every subscription of its events nodes (saving their positions).
    const finish = async () => {
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
    annotate: (...args: Parameters<Annotator>) => sharedAnnotator()(...args),
    subscribe: (selection: TaskSelection, handlers: SubscriptionHandlers, options: SubscribeOptions) =>
      getClient().events.subscribe(
        selection,
        handlers,
        heartbeat ? { heartbeatMs: heartbeat, ...options } : options,
      ),
  };
  Object.assign(node, extension);
  // A getter, not a copied value: core's count changes as events nodes come and go.
  Object.defineProperty(node, 'openSubscriptions', {
    get: () => client?.openSubscriptions ?? 0,
    enumerable: false,
  });
  return node as ServerNode;
}
