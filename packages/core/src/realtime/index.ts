export type {
  DeploymentForm,
  RealtimeClock,
  RealtimeContext,
  RealtimeHistoryQuery,
  RealtimeLogger,
  RealtimeWebSocketConstructor,
} from './context.js';
export { createSubscription } from './subscription.js';
export type {
  EventMeta,
  StateChangeInfo,
  SubscribeOptions,
  Subscription,
  SubscriptionCursor,
  SubscriptionHandlers,
  SubscriptionState,
  SubscriptionStats,
  TaskSelection,
} from './types.js';
