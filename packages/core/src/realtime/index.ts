export type { RealtimeContext, RealtimeHistoryQuery } from './context.js';
export { batchIdentity, eventIdentity } from './event-key.js';
export { createSubscription, type RunTracking } from './subscription-handle.js';
export type {
  EventBatch,
  EventMeta,
  StateChangeInfo,
  SubscribeOptions,
  Subscription,
  SubscriptionHandlers,
  SubscriptionState,
  SubscriptionStats,
  SubscriptionTarget,
  TaskSelection,
} from './types.js';
