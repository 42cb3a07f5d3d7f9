export type { RealtimeContext, RealtimeHistoryQuery } from './context.js';
export { batchIdentity, eventIdentity } from './event-key.js';
export { outageOf } from './outage.js';
export { createSubscription, type RunTracking } from './subscription-handle.js';
export type {
  CloseOptions,
  EventBatch,
  EventMeta,
  GivenUp,
  Outage,
  OutageReason,
  Recovery,
  StateChangeInfo,
  SubscribeOptions,
  Subscription,
  SubscriptionHandlers,
  SubscriptionState,
  SubscriptionStats,
  SubscriptionStatus,
  SubscriptionTarget,
  TaskSelection,
} from './types.js';
