// `@observation-service/core/portable`: the same client for hosts that allow no Node built-in and
// no global timer (n8n Cloud's community-node rules). createClient needs the host's `transport`
// and `clock`; realtime uses the runtime's WebSocket. Nothing here imports undici, ws or timers.
export { createClient } from './portable/create-client.js';
export * from './shared-exports.js';
