/**
 * Everything the node files use at runtime, built into one shared file (dist/lib/runtime.js)
 * that bundles core in as well. The node files only `require('../lib/runtime.js')`, so all node
 * types of the package share one copy of core, its connection pools and its caches.
 */
// For the annotation worker thread (annotate-worker.ts), which loads this file too.
export { serveAnnotations } from '@observation-service/core';
export { registerAdminRoutes } from './admin-routes.js';
export {
  type DurableHost,
  type DurableLocation,
  type DurableStore,
  durablePositionStore,
  durableStore,
  durableTaskWatchStore,
} from './durable-store.js';
export { setUpEventsNode } from './events-node.js';
export { networkOptions } from './network-options.js';
export { setUpQueryNode } from './query-node.js';
export { SERVER_NODE_TYPE, setUpServerNode } from './server-node.js';
export { setUpTaskWatchNode } from './task-watch-node.js';
