// `@observation-service/core`: the Node entry. createClient defaults to undici (HTTP keep-alive
// pool), `ws` (realtime, with TLS options and ping frames) and Node's timers. Hosts that allow
// none of these (n8n Cloud) use `@observation-service/core/portable` instead: same client, same
// code, their own ports (see README "Entry points").

export type { UndiciTransportOptions } from './http/undici-transport.js';
export {
  type AnnotationWorker,
  type AnnotationWorkerOptions,
  annotationWorker,
  serveAnnotations,
} from './node/annotation-worker.js';
export { createClient } from './node/create-client.js';
export { systemClock } from './node/system-clock.js';
export { createUndiciTransport } from './node/undici-transport.js';
export * from './shared-exports.js';
