export type { RealtimeContext, RealtimeHistoryQuery } from './context.js';
export { batchIdentity, eventIdentity } from './event-key.js';
export { createSubscription } from './subscription.js';
export type {
  EventBatch,
  EventMeta,
  StateChangeInfo,
  SubscribeOptions,
  Subscription,
  SubscriptionHandlers,
  SubscriptionState,
  SubscriptionStats,
  TaskSelection,
} from './types.js';
